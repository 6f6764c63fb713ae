package watcher_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wavehooks/wavehooks/watcher"
)

// A host watches a settings directory, not the file (editors save by
// rename), and gets one call per changed path per burst of events.
func ExampleWatcher() {
	dir, _ := os.MkdirTemp("", "settings-")
	defer os.RemoveAll(dir)
	changed := make(chan []string, 1)
	w, err := watcher.New(50*time.Millisecond, func(paths []string) { changed <- paths })
	if err != nil {
		panic(err)
	}
	defer w.Close()
	_ = w.WatchDir(dir, watcher.KeepExt(".json"))

	// An editor's atomic save: a temporary file renamed over the target.
	tmp := filepath.Join(dir, ".settings.json.tmp")
	_ = os.WriteFile(tmp, []byte(`{"hooks": {}}`), 0o600)
	_ = os.Rename(tmp, filepath.Join(dir, "settings.json"))
	for _, p := range <-changed {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// settings.json
}
