package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/session"
)

// /report's words are checked before anything is written: formats, files
// by extension, the rest refused with the fix.
func TestParseChatReport(t *testing.T) {
	cases := []struct{ arg, formats, want string }{
		{"", "xlsx pdf", ""},
		{"html", "html", ""},
		{"xlsx q2.pdf", "xlsx pdf", ""},
		{"nonsense", "", "nonsense: name xlsx, pdf or html"},
		{"notes.md", "", "notes.md: name xlsx, pdf or html"},
		{"pdf q2.pdf", "", "asked for twice"},
	}
	for _, c := range cases {
		o, err := parseChatReport(c.arg)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: %v, want %q", c.arg, err, c.want)
			}
			continue
		}
		var got []string
		for _, f := range o.Formats {
			got = append(got, string(f))
		}
		if err != nil || strings.Join(got, " ") != c.formats {
			t.Errorf("%q: %v %v, want %s", c.arg, got, err, c.formats)
		}
	}
}

// A report never replaces one: the folder's names get one free suffix for
// the files written together, and a file the user names that exists, or
// whose folder does not, is refused.
func TestReportTargetsReplaceNothing(t *testing.T) {
	dir := t.TempDir()
	plan := func(arg string) ([]string, error) {
		o, err := parseChatReport(arg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := reportTargets(dir, &o)
		var names []string
		for _, f := range p.Files {
			names = append(names, strings.TrimPrefix(f, dir+string(filepath.Separator)))
		}
		return names, err
	}
	if got, _ := plan(""); strings.Join(got, " ") != "report.xlsx report.pdf" {
		t.Errorf("a new folder: %q", got)
	}
	for _, n := range []string{"report.xlsx", "report.pdf"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	if got, _ := plan(""); strings.Join(got, " ") != "report-2.xlsx report-2.pdf" {
		t.Errorf("after the demo's report: %q", got)
	}
	if got, _ := plan("html"); strings.Join(got, " ") != "report.html" {
		t.Errorf("html alone: %q", got)
	}
	if _, err := plan(filepath.Join(dir, "report.pdf")); err == nil || !strings.Contains(err.Error(), "would be replaced") {
		t.Errorf("an existing file named: %v", err)
	}
	if _, err := plan(filepath.Join(dir, "no", "such", "q.pdf")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing folder: %v", err)
	}
}

// /report after /reset, before a new question, has nothing to report and
// says so; a question since makes it reportable again.
func TestReportableAfterReset(t *testing.T) {
	rec := &session.Record{Entries: []session.Entry{
		{Kind: session.EntryQuestion, Text: "the variance report"},
		{Kind: session.EntryAnswer, Text: "done"},
		{Kind: session.EntryReset},
	}}
	if err := reportable(rec); err == nil || !strings.Contains(err.Error(), "nothing to report yet") {
		t.Errorf("after /reset: %v", err)
	}
	rec.Entries = append(rec.Entries, session.Entry{Kind: session.EntryQuestion, Text: "and by month?"})
	if err := reportable(rec); err != nil {
		t.Errorf("after a new question: %v", err)
	}
}
