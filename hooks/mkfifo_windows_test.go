//go:build windows

package hooks

import "errors"

func mkfifo(string) error { return errors.New("Windows has no FIFOs") }
