package host

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// This file lets a reload that nothing asked for (the ACP proxy's, at every
// prompt) skip reading, parsing and deciding trust again when none of what
// the last load read changed: a few stats instead of a load. What it
// compares, and why a skipped reload never keeps a stale configuration or
// trust decision, is in docs/security.md ("Reloading only what changed").

// racyMargin is how long before a load started every input must have last
// changed for its stamp to prove later that it is unchanged. File times
// come from a coarse clock (a few milliseconds; whole seconds on HFS+ or
// ext3, two on FAT), so a rewrite of the same size within one tick keeps
// size and times: a stamp taken within that window proves nothing (git's
// "racily clean" files), and the next reload reads everything again. It is
// the trust's own racy window (internal/trust, racyWindow), for the same
// reason.
const racyMargin = 2 * time.Second

// presence is how a stat of a path ended.
type presence uint8

const (
	present presence = iota + 1
	absent           // ENOENT
	notDir           // ENOTDIR: a component of the path is a file
)

// stamp is what one stat (or lstat) says of a path: whether it exists, and
// if it does its mode, device, inode, size, modification and change times
// (nanoseconds). The change time cannot be set back by a user, so a
// rewrite that restores the modification time still changes the stamp.
type stamp struct {
	is           presence
	mode         fs.FileMode
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// pathStamp is a path's stamps: through lstat (the link itself, when it is
// one) and stat (what it resolves to), so that a symlink retargeted to
// another file, or a file moved under a link, is a change either way. The
// two differ only in following the last component: when lstat finds no
// symlink there (the path is absent, or is the file itself), stat would
// say the same, and only lstat is called (stampPath).
type pathStamp struct {
	path         string
	link, target stamp
	// identityOnly compares only what the path is (device, inode, type),
	// not its size or times: the project root, whose times change with
	// every file created in it, and whose resolution is all trust reads.
	identityOnly bool
}

// inputStamps are the stamps of every input of one load, taken after it,
// and the decision that load installed.
type inputStamps struct {
	loaded *trust.Loaded
	paths  []pathStamp
	grain  time.Duration
}

// statPath stamps a path with stat (follow) or lstat, its times truncated
// to grain (0 keeps them whole; tests set it to play a file system of
// coarse times). ok is false when the path cannot be stamped: an error
// other than "does not exist", or a platform where the device, inode and
// change time are not known (sysStamp).
func statPath(path string, follow bool, grain time.Duration) (stamp, bool) {
	st := os.Lstat
	if follow {
		st = os.Stat
	}
	fi, err := st(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stamp{is: absent}, true
	case errors.Is(err, syscall.ENOTDIR):
		return stamp{is: notDir}, true
	case err != nil:
		return stamp{}, false
	}
	dev, ino, ctime, ok := sysStamp(fi)
	if !ok {
		return stamp{}, false
	}
	s := stamp{is: present, mode: fi.Mode(), dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctime}
	if g := grain.Nanoseconds(); g > 0 {
		s.mtime -= s.mtime % g
		s.ctime -= s.ctime % g
	}
	return s, true
}

// stampPath stamps a path through lstat and, when it is a symlink, stat.
func stampPath(path string, grain time.Duration) (link, target stamp, ok bool) {
	link, ok = statPath(path, false, grain)
	if !ok || link.is != present || link.mode&fs.ModeSymlink == 0 {
		return link, link, ok
	}
	target, ok = statPath(path, true, grain)
	return link, target, ok
}

// same reports whether two stamps of a path say it is unchanged.
func (s stamp) same(o stamp, identityOnly bool) bool {
	if s.is != o.is || s.mode != o.mode {
		return false
	}
	if s.is != present {
		return true
	}
	if identityOnly {
		return s.dev == o.dev && s.ino == o.ino
	}
	return s == o
}

// racy reports whether the stamp was taken too soon after the path last
// changed, or changed during the load, for it to prove anything: its
// modification or change time is not older than the load's start less
// racyMargin (a modification time set in the future is racy too).
func (s stamp) racy(start time.Time, margin time.Duration) bool {
	if s.is != present {
		return false
	}
	limit := start.Add(-margin).UnixNano()
	return s.mtime >= limit || s.ctime >= limit
}

// takeStamps stamps every input of a load that began at start and ended in
// full and l, where the trust store is at trustPath; nil when any input
// cannot be stamped or any stamp is racy: the next reload then reads
// everything again.
func takeStamps(start time.Time, margin, grain time.Duration, full *settings.Config, l *trust.Loaded, trustPath string) *inputStamps {
	root := full.Paths.ProjectRoot
	seen := map[string]bool{}
	s := &inputStamps{loaded: l, grain: grain}
	add := func(path string) bool {
		if path == "" || seen[path] {
			return true
		}
		seen[path] = true
		ps := pathStamp{path: path, identityOnly: path == root}
		var ok bool
		if ps.link, ps.target, ok = stampPath(path, grain); !ok {
			return false
		}
		if !ps.identityOnly && (ps.link.racy(start, margin) || ps.target.racy(start, margin)) {
			return false
		}
		s.paths = append(s.paths, ps)
		return true
	}
	for _, group := range [][]string{full.Inputs(), l.Inputs(), {trustPath}} {
		for _, p := range group {
			if !add(p) {
				return nil
			}
		}
	}
	return s
}

// unchanged reports whether every input stamps as it did when the stamps
// were taken. Any path that cannot be stamped now counts as changed.
func (s *inputStamps) unchanged() bool {
	for i := range s.paths {
		ps := &s.paths[i]
		link, target, ok := stampPath(ps.path, s.grain)
		if !ok || !link.same(ps.link, ps.identityOnly) || !target.same(ps.target, ps.identityOnly) {
			return false
		}
	}
	return true
}
