package hooktest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/wavehooks/wavehooks/internal/safetext"
)

// WriteText prints the notes, one line per case (`PASS name` or
// `FAIL name: expected …, got …`), and last `N passed, M failed`, the line
// CI output parsers read. Every name and text is escaped: it comes from a
// repository or a hook.
func WriteText(w io.Writer, r *Report) error {
	for _, n := range r.Notes {
		fmt.Fprintln(w, safetext.Line(n, 0))
	}
	for _, o := range r.Outcomes {
		if o.Passed() {
			fmt.Fprintf(w, "PASS %s\n", safetext.Line(o.Case.Name, 0))
			continue
		}
		fmt.Fprintf(w, "FAIL %s: %s\n", safetext.Line(o.Case.Name, 0), safetext.Line(strings.Join(o.Failures, "; "), 0))
	}
	passed, failed := r.Counts()
	_, err := fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return err
}

// jsonReport is --format json.
type jsonReport struct {
	Notes  []string   `json:"notes"`
	Cases  []jsonCase `json:"cases"`
	Passed int        `json:"passed"`
	Failed int        `json:"failed"`
}

type jsonCase struct {
	Name       string   `json:"name"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Column     int      `json:"column"`
	Event      string   `json:"event"`
	Passed     bool     `json:"passed"`
	Failures   []string `json:"failures"`
	DurationMs int64    `json:"durationMs"`
	Got        Got      `json:"got"`
}

// WriteJSON prints the report as one JSON object: notes, each case (where
// it is written, whether it passed, each failure and what the hooks
// decided) and the counts.
func WriteJSON(w io.Writer, r *Report) error {
	out := jsonReport{Notes: append([]string{}, r.Notes...), Cases: []jsonCase{}}
	out.Passed, out.Failed = r.Counts()
	for _, o := range r.Outcomes {
		c := o.Case
		out.Cases = append(out.Cases, jsonCase{Name: c.Name, File: c.File, Line: c.Line, Column: c.Col, Event: c.Event,
			Passed: o.Passed(), Failures: append([]string{}, o.Failures...), DurationMs: o.Duration.Milliseconds(), Got: o.Got})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// JUnit XML, as Jenkins, GitLab and GitHub's test reporters read it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit prints the report as JUnit XML: one testsuite per case file
// (the classname of its cases), a failure element per failing case, and the
// notes as properties of every suite.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junitSuites{}
	index := map[string]int{}
	secs := map[string]float64{}
	for _, o := range r.Outcomes {
		file := o.Case.File
		i, ok := index[file]
		if !ok {
			i = len(out.Suites)
			index[file] = i
			s := junitSuite{Name: file}
			if len(r.Notes) > 0 {
				s.Properties = &junitProperties{}
			}
			for _, n := range r.Notes {
				s.Properties.Property = append(s.Properties.Property, junitProperty{Name: "wavehooks.note", Value: n})
			}
			out.Suites = append(out.Suites, s)
		}
		s := &out.Suites[i]
		c := junitCase{Name: o.Case.Name, Classname: file, File: file, Line: o.Case.Line,
			Time: fmt.Sprintf("%.3f", o.Duration.Seconds())}
		if !o.Passed() {
			msg := strings.Join(o.Failures, "; ")
			c.Failure = &junitFailure{Message: msg, Type: "expectation", Text: strings.Join(o.Failures, "\n")}
			s.Failures++
			out.Failures++
		}
		s.Tests++
		out.Tests++
		secs[file] += o.Duration.Seconds()
		s.Cases = append(s.Cases, c)
	}
	for i := range out.Suites {
		out.Suites[i].Time = fmt.Sprintf("%.3f", secs[out.Suites[i].Name])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
