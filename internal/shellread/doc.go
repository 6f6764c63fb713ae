// Package shellread is wavehooks' one reader of POSIX shell command lines.
// It turns a hook's command into tokens and simple commands, and reads what
// a command runs (the program after env, wrappers and keywords; the script
// or modules an interpreter is given), so that the "if" rules, lint, trust
// and the env files of hooks all read a line the same way.
//
// It is a reader for matching, not a shell: nothing is expanded or run.
// Trust decides from what it reads which workspace files a command runs,
// so a form it misreads is a trust gap; the README ("Architecture") says
// why it is hand-written rather than mvdan.cc/sh/v3/syntax.
package shellread
