package settings

import "fmt"

// UnmarshalText reads a source name as MarshalText writes it, so clients
// written in Go (and the tests) can decode hook runs.
func (s *Source) UnmarshalText(b []byte) error {
	for i, name := range sourceNames {
		if name == string(b) {
			*s = Source(i)
			return nil
		}
	}
	return fmt.Errorf("unknown hook source %q", b)
}
