package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// wordsRecord is a session whose question has an &, whose answer has its
// own headings and whose one cell was interrupted.
func wordsRecord(t *testing.T) *session.Record {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261129-173235-3761b5")
	os.MkdirAll(dir, 0o700)
	var lines []string
	for _, e := range []session.Entry{
		{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir)},
		{Kind: session.EntryQuestion, Text: "Variance of R&D vs Q&A spend"},
		{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Code: "while True: pass", Status: session.CellCancelled,
			Result: kernel.Result{Duration: 3 * time.Second, Error: &kernel.Error{Kind: kernel.ErrInterrupted, Type: "KeyboardInterrupt"}}}},
		{Kind: session.EntryAnswer, Text: "## Variance report\n\nR&D grew; &amp; stays text.\n\n### By region\n\nNorth."},
	} {
		e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		b, _ := json.Marshal(e)
		lines = append(lines, string(b))
	}
	os.WriteFile(filepath.Join(dir, session.RecordName), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	return loadRecord(t, dir)
}

// The exports say what the chat says: no HTML entity in the Markdown
// report, the answer's headings under its question's, and an interrupted
// cell called interrupted, as in the chat's header.
func TestExportWordsMatchTheChat(t *testing.T) {
	rec := wordsRecord(t)
	render := func(f Format) string {
		var b bytes.Buffer
		if err := Render(&b, rec, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	md := render(Markdown)
	for _, want := range []string{
		"## 1. Variance of R&D vs Q&A spend\n",
		"**cell 1 · interrupted after 3.0s**",
		"### Variance report\n\nR&D grew; &amp; stays text.\n\n#### By region",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "R&amp;D") || strings.Contains(md, "cancelled") || strings.Contains(md, "\n## Variance report") {
		t.Errorf("report:\n%s", md)
	}
	page := render(HTML)
	for _, want := range []string{"<h3>Variance report</h3>", "<h4>By region</h4>", "cell 1 · interrupted after 3.0s"} {
		if !strings.Contains(page, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	nb := render(Notebook)
	if !strings.Contains(nb, `"### Variance report`) {
		t.Errorf("notebook:\n%s", nb)
	}
	// A name that reads as an entity is escaped so no viewer decodes it.
	if got := escapeMarkdown("x &amp; y &#39; R&D"); got != `x \&amp; y \&\#39; R&D` {
		t.Errorf("escapeMarkdown: %q", got)
	}
}
