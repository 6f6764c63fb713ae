package session

// AddWarning records a warning in the conversation: a warn block, placed
// and sent on as every warn block is. It is for adapters that learn of
// something the hooks could not act on, such as a tool an ACP agent ran
// without asking (docs/acp.md).
func (s *Session) AddWarning(text string) (Block, error) {
	var b Block
	err := s.begin(func() error { b = s.conv.addWarn(text); return nil }, nil)
	return b, err
}
