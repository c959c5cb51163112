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

// tableRecord is a session folder whose one cell returned table, run with
// the thousands setting as given.
func tableRecord(t *testing.T, table *kernel.Table, thousands bool) *session.Record {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261129-173235-3761b5")
	os.MkdirAll(dir, 0o700)
	var lines []string
	for _, e := range []session.Entry{
		{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Settings: &session.Settings{Thousands: thousands}},
		{Kind: session.EntryQuestion, Text: "total by department"},
		{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Code: "t", Status: session.CellOK,
			Result: kernel.Result{Value: &kernel.Value{Repr: "…", Table: table}, Duration: time.Second}}},
	} {
		e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		b, _ := json.Marshal(e)
		lines = append(lines, string(b))
	}
	os.WriteFile(filepath.Join(dir, session.RecordName), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	return loadRecord(t, dir)
}

// The exports show a table as the chat does: the kernel's display values
// (pandas' precision, the setting's digit groups), not the exact values the
// model reads, and the chat's "1 row × 1 column".
func TestExportTablesAsTheChatShowsThem(t *testing.T) {
	table := &kernel.Table{Columns: []string{"total"}, Dtypes: []string{"float64"}, IndexName: "department",
		Index: []string{"Sales"}, Head: [][]string{{"46624.99000000002"}}, Rows: 1, Cols: 1,
		Display: [][]string{{"46624.99"}}}
	for _, thousands := range []bool{true, false} {
		want := "46624.99"
		if thousands {
			want = "46,624.99"
		}
		rec := tableRecord(t, table, thousands)
		for _, f := range []Format{Markdown, HTML, Notebook} {
			var b bytes.Buffer
			if err := Render(&b, rec, f); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, want) || strings.Contains(out, "46624.99000000002") {
				t.Errorf("%s (thousands %v) does not show %s as displayed:\n%s", f, thousands, want, out)
			}
			if !strings.Contains(out, "1 row × 1 column") || strings.Contains(out, "1 rows") || strings.Contains(out, "1 columns") {
				t.Errorf("%s words the shape unlike the chat:\n%s", f, out)
			}
		}
	}
}

// The display values come from the sandbox like the exact ones: terminal
// escapes go, and neither Markdown nor HTML is made of them.
func TestExportTableDisplayIsUntrusted(t *testing.T) {
	hostile := "\x1b]52;c;ZXZpbA==\x07<script>alert(1)</script>|**x**"
	table := &kernel.Table{Columns: []string{"note"}, Dtypes: []string{"object"}, IndexName: "i",
		Index: []string{"0"}, Head: [][]string{{"plain"}}, Rows: 1, Cols: 1,
		Display: [][]string{{hostile}}, IndexDisplay: []string{"\x1b[2J<b>row</b>"}}
	rec := tableRecord(t, table, true)
	for _, f := range []Format{Markdown, HTML, Notebook} {
		var b bytes.Buffer
		if err := Render(&b, rec, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if f == Notebook {
			var nb struct {
				Cells []struct {
					Outputs []struct {
						Data map[string]string `json:"data"`
					} `json:"outputs"`
				} `json:"cells"`
			}
			if err := json.Unmarshal(b.Bytes(), &nb); err != nil {
				t.Fatal(err)
			}
			out = ""
			for _, c := range nb.Cells {
				for _, o := range c.Outputs {
					out += o.Data["text/html"]
				}
			}
			if out == "" {
				t.Fatal("the notebook has no table")
			}
		}
		if strings.ContainsAny(out, "\x1b\x07") || rawTag(out, "<script") || rawTag(out, "<b>") {
			t.Errorf("%s carries the display values raw:\n%q", f, out)
		}
		if !strings.Contains(out, "alert(1)") {
			t.Errorf("%s lost the display value's text:\n%s", f, out)
		}
	}
}
