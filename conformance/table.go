//go:build linux

package conformance

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The results table lives in docs/conformance.md between these two lines;
// the suite writes it (-update) and checks it (every full run).
const (
	TableBegin = "<!-- BEGIN GENERATED: go test ./conformance -run TestConformance -update -->"
	TableEnd   = "<!-- END GENERATED -->"
)

// Verdict is a row checked against the known differences.
type Verdict struct {
	Row
	// Known is the entry that explains the row (for item rows, the entries of its items).
	Known []KnownUse
	// Problem is set when the row does not match the expectation: a
	// difference no entry explains, or an entry whose row now agrees.
	Problem string
}

// KnownUse is one allow-list entry a row used.
type KnownUse struct {
	Key string
	Known
	Text string // the item's text, for item rows
}

// Judge checks each row against knownRows and knownItems.
func Judge(rows []Row) []Verdict {
	out := make([]Verdict, 0, len(rows))
	for _, r := range rows {
		v := Verdict{Row: r}
		k, listed := knownRows[r.ID()]
		switch {
		case len(r.Items) > 0:
			for _, it := range r.Items {
				kn, key, ok := lookupItem(it.Key)
				if !ok {
					v.Problem += fmt.Sprintf("unexpected difference %q (%s); ", it.Key, it.Text)
					continue
				}
				v.Known = append(v.Known, KnownUse{Key: key, Known: kn, Text: it.Text})
			}
		case !r.Same && listed:
			v.Known = []KnownUse{{Key: r.ID(), Known: k}}
		case !r.Same:
			v.Problem = "unexpected difference: " + r.Detail
		case listed:
			v.Problem = "now the same as Claude Code (" + r.Detail + "): remove it from knownRows"
		}
		out = append(out, v)
	}
	return out
}

// StaleItems are item entries no row used: the difference is gone.
func StaleItems(verdicts []Verdict) []string {
	used := map[string]bool{}
	for _, v := range verdicts {
		for _, k := range v.Known {
			used[k.Key] = true
		}
	}
	var stale []string
	for key := range knownItems {
		if !used[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	return stale
}

// Render writes the generated part of docs/conformance.md.
func Render(verdicts []Verdict) string {
	var b strings.Builder
	counts := map[Kind]int{}
	same, differ := 0, 0
	for _, v := range verdicts {
		if v.Same {
			same++
			continue
		}
		differ++
		kinds := map[Kind]bool{}
		for _, k := range v.Known {
			kinds[k.Kind] = true
		}
		for k := range kinds {
			counts[k]++
		}
	}
	fmt.Fprintf(&b, "%s\n\n", TableBegin)
	fmt.Fprintf(&b, "Claude Code %s against wavehooks: %d scenarios, %d rows: **%d same, %d differ** "+
		"(rows with a gap of issue #14 or #24: %d; by design: %d; the host's part: %d; found by this suite, undecided: %d).\n\n",
		ClaudeVersion, countScenarios(verdicts), len(verdicts), same, differ, counts[Gap], counts[Design], counts[Host], counts[Found])
	b.WriteString("| scenario | aspect | result |\n|---|---|---|\n")
	last := ""
	for _, v := range verdicts {
		name := ""
		if v.Scenario != last {
			name, last = "`"+v.Scenario+"`", v.Scenario
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, cell(v.Aspect), cell(resultText(v)))
	}
	b.WriteString("\n### Scenarios\n\n")
	seen := map[string]bool{}
	for _, s := range Scenarios {
		for _, v := range verdicts {
			if v.Scenario == s.Name && !seen[s.Name] {
				seen[s.Name] = true
				fmt.Fprintf(&b, "- `%s`: %s.\n", s.Name, s.About)
			}
		}
	}
	b.WriteString("\n### What turns \"same\" when the gaps of issues #14 and #24 are closed\n\n")
	n := 0
	for _, g := range groupUses(verdicts, Gap) {
		fmt.Fprintf(&b, "- %s Rows: %s.\n", g.why, strings.Join(g.rows, ", "))
		n++
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	b.WriteString("\n### Differences found by this suite, not yet decided\n\n")
	n = 0
	for _, g := range groupUses(verdicts, Found) {
		fmt.Fprintf(&b, "- %s Rows: %s.\n", g.why, strings.Join(g.rows, ", "))
		n++
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	fmt.Fprintf(&b, "\n%s\n", TableEnd)
	return b.String()
}

// useGroup is one reason of a kind and the rows it explains.
type useGroup struct {
	why  string
	rows []string
}

// groupUses gathers the rows each reason of kind explains, in table order.
func groupUses(verdicts []Verdict, kind Kind) []useGroup {
	var groups []useGroup
	index := map[string]int{}
	for _, v := range verdicts {
		for _, k := range v.Known {
			if k.Kind != kind {
				continue
			}
			i, ok := index[k.Why]
			if !ok {
				i = len(groups)
				index[k.Why] = i
				groups = append(groups, useGroup{why: strings.TrimSuffix(k.Why, ".") + "."})
			}
			name := "`" + v.Scenario + "` · " + v.Aspect
			if !slices.Contains(groups[i].rows, name) {
				groups[i].rows = append(groups[i].rows, name)
			}
		}
	}
	return groups
}

func resultText(v Verdict) string {
	if v.Same {
		if v.Detail == "" {
			return "same"
		}
		return "same (" + v.Detail + ")"
	}
	if len(v.Row.Items) > 0 {
		// Items explained by the same entry share its reason.
		var order []Known
		texts := map[Known][]string{}
		for _, k := range v.Known {
			if _, ok := texts[k.Known]; !ok {
				order = append(order, k.Known)
			}
			texts[k.Known] = append(texts[k.Known], k.Text)
		}
		parts := make([]string, 0, len(order))
		for _, k := range order {
			parts = append(parts, fmt.Sprintf("%s [%s: %s]", strings.Join(texts[k], ", "), k.Kind, k.Why))
		}
		return "differs: " + strings.Join(parts, "; ")
	}
	if len(v.Known) == 1 {
		return fmt.Sprintf("differs: %s [%s: %s]", v.Detail, v.Known[0].Kind, v.Known[0].Why)
	}
	return "differs: " + v.Detail
}

func countScenarios(verdicts []Verdict) int {
	seen := map[string]bool{}
	for _, v := range verdicts {
		seen[v.Scenario] = true
	}
	return len(seen)
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// ReplaceTable puts table between the markers of doc.
func ReplaceTable(doc, table string) (string, error) {
	i := strings.Index(doc, TableBegin)
	j := strings.Index(doc, TableEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("the markers %q and %q are missing", TableBegin, TableEnd)
	}
	rest := strings.TrimPrefix(doc[j+len(TableEnd):], "\n")
	return doc[:i] + table + rest, nil
}

// CurrentTable is the generated part of doc.
func CurrentTable(doc string) string {
	i := strings.Index(doc, TableBegin)
	j := strings.Index(doc, TableEnd)
	if i < 0 || j < i {
		return ""
	}
	return doc[i:j+len(TableEnd)] + "\n"
}
