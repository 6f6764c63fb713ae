// Package proctest holds what the tests of several packages need of
// processes and files that differs by operating system: whether a process
// still runs, killing one a test left behind, and named pipes. The Windows
// versions only have to compile: the tests run their sh hooks on Linux
// (README, "What is tested where").
package proctest
