//go:build !linux

package proc

import "errors"

// AdoptOrphans is Linux only (PR_SET_CHILD_SUBREAPER); elsewhere a hook's
// orphans go to init as usual.
func AdoptOrphans() (stop func(), err error) {
	return func() {}, errors.New("adopting orphaned hook processes needs Linux")
}

// reapSoon has nothing to do where AdoptOrphans does not exist.
func reapSoon() {}
