//go:build !wavehooks_measure_nowatch

package lsp

// measureNoWatch is false in every build but the measuring one
// (measure_nowatch.go): the branch it guards is compiled out.
const measureNoWatch = false
