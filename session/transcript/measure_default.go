//go:build !wavehooks_measure_nosave

package transcript

// measureNoSave is false in every build but the measuring one
// (measure_nosave.go): the branch it guards is compiled out.
const measureNoSave = false
