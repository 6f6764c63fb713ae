package acp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// unstableMethods are the table's methods found only in ACP's unstable
// method list (meta.unstable.json), with the reason the proxy acts on them.
var unstableMethods = map[string]string{
	methodSessionFork: "claude-agent-acp offers it, and the session it opens needs state and hooks like session/new's",
}

// TestMethodsInSchema holds the routing table to the vendored ACP v1
// method list: every method the proxy acts on is one of ACP's (a
// misspelt constant would route nothing), one of its unstable ones listed
// in unstableMethods, or the proxy's own extension, whose name starts with
// "_" as ACP reserves for extensions.
func TestMethodsInSchema(t *testing.T) {
	stable, unstable := metaMethods(t, "schema/v1/meta.json"), metaMethods(t, "schema/v1/meta.unstable.json")
	if len(methods) == 0 {
		t.Fatal("the routing table is empty")
	}
	for name := range methods {
		_, listed := unstableMethods[name]
		switch {
		case strings.HasPrefix(name, "_"):
		case stable[name] && listed:
			t.Errorf("%s is in ACP's stable method list now: take it off unstableMethods", name)
		case stable[name]:
		case listed && unstable[name]:
		case listed:
			t.Errorf("%s is listed as unstable but is not in meta.unstable.json", name)
		default:
			t.Errorf("%q is not a method of ACP v1's meta.json (misspelt, or unstable: list it in unstableMethods with its reason)", name)
		}
	}
	for name := range unstableMethods {
		if methods[name] == nil {
			t.Errorf("unstableMethods lists %s, which is not in the routing table", name)
		}
	}
}

// metaMethods reads a vendored meta.json's method names, of both sides.
func metaMethods(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile("../internal/acpmsg/" + path)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, side := range []string{"agentMethods", "clientMethods", "protocolMethods"} {
		var m map[string]string
		if err := json.Unmarshal(meta[side], &m); err != nil || len(m) == 0 && side != "protocolMethods" {
			t.Fatalf("%s: no %s (%v)", path, side, err)
		}
		for _, name := range m {
			names[name] = true
		}
	}
	return names
}

// Every row of the routing table does something: a row with no handler
// and no flag would be a method the proxy claims to act on and does not.
func TestMethodRowsAct(t *testing.T) {
	for name, row := range methods {
		if row.name != name {
			t.Errorf("%s: row named %q", name, row.name)
		}
		if row.editorRequest == nil && row.agentResponse == nil && row.agentRequest == nil &&
			row.agentNotification == nil && row.editorNotificationRead == nil {
			t.Errorf("%s: a row with no handler", name)
		}
	}
}
