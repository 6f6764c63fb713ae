//go:build wavehooks_measure_nosave

package transcript

// measureNoSave, set only by the wavehooks_measure_nosave build tag, makes
// saveUnits write nothing: the build measures what the guarantee that an
// acknowledged message is written before the answer costs a serve request
// (docs/performance.md, "The hooked call against a process"). Such a build
// loses every message it is told: it is for that measurement alone, and no
// Makefile target sets the tag.
const measureNoSave = true
