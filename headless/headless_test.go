package headless

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// Piped data is named by its content's kind, the table's (filekind).
func TestSaveStdinNamesByContent(t *testing.T) {
	cases := map[string]string{
		"department,budget\nSales,1\n":                      "stdin.csv",
		"\xEF\xBB\xBFa;b\n1;2\n":                            "stdin.csv",
		"a\tb\tc\n1\t2\t3\n":                                "stdin.tsv",
		"  [{\"a\": 1}]":                                    "stdin.json",
		"{\"a\": 1}\n{\"a\": 2}\n":                          "stdin.jsonl",
		"just some notes\nmore notes\n":                     "stdin.txt",
		"PAR1\x15\x04\x00\x00\x00\x00PAR1":                  "stdin.parquet",
		"SQLite format 3\x00" + strings.Repeat("\x00", 100): "stdin.sqlite",
	}
	for in, want := range cases {
		path, err := saveStdin(t.TempDir(), strings.NewReader(in))
		if err != nil || filepath.Base(path) != want {
			t.Errorf("saveStdin(%q) = %q, %v; want %s", in, path, err, want)
		}
	}
	for in, want := range map[string]string{
		"\x00\x01garbage":    "standard input: binary data of an unknown kind",
		"%PDF-1.7\n\x00\x01": "standard input is a PDF document, not data quarry reads",
	} {
		if _, err := saveStdin(t.TempDir(), strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("stdin %q: err = %v, want %q", in, err, want)
		}
	}
}

func TestSaveStdinNamesByType(t *testing.T) {
	path, err := saveStdin(t.TempDir(), strings.NewReader("a\tb\n1\t2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "stdin.tsv" {
		t.Errorf("path = %s", path)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\tb\n1\t2\n" {
		t.Errorf("content = %q", b)
	}
	path, err = saveStdin(t.TempDir(), strings.NewReader(""))
	if err != nil || path != "" {
		t.Errorf("empty stdin: %q, %v", path, err)
	}
}

func TestHasPipedData(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if hasPipedData(devnull) {
		t.Error("/dev/null counted as piped data")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Close()
	if !hasPipedData(r) {
		t.Error("a pipe is not counted as piped data")
	}
	if hasPipedData(nil) {
		t.Error("nil counted")
	}
}

func TestReadPrompt(t *testing.T) {
	if p, err := ReadPrompt("-", strings.NewReader("\n  what changed?  \n")); err != nil || p != "what changed?" {
		t.Errorf("ReadPrompt(-) = %q, %v", p, err)
	}
	if _, err := ReadPrompt("-", strings.NewReader(" \n")); err == nil {
		t.Error("empty stdin prompt accepted")
	}
	if p, err := ReadPrompt("variance", nil); err != nil || p != "variance" {
		t.Errorf("ReadPrompt(text) = %q, %v", p, err)
	}
}

const evil = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[2J\u009b31m"

func TestOutputIsSanitized(t *testing.T) {
	c := newCollector()
	c.Event(agent.Event{Kind: agent.EventCellDone, Cell: 1, Code: "print('x')" + evil, Result: &kernel.Result{
		Stdout:   "out" + evil,
		Value:    &kernel.Value{Repr: "42" + evil},
		Error:    &kernel.Error{Kind: kernel.ErrException, Type: "KeyError", Message: "boom" + evil},
		Figures:  []kernel.File{{Name: "a.png", Path: "/out/a.png"}},
		Files:    []kernel.File{{Name: "a.csv", Path: "/out/a.csv"}, {Name: "a.png", Path: "/out/a.png"}},
		Duration: 1500 * time.Millisecond,
	}})
	c.Event(agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Turn: agent.Tokens{Prompt: 10, Completion: 5, CostUSD: 0.01}}})
	res := c.Finish("**Answer**"+evil, "gpt-fake", "s1", "/out")

	var md bytes.Buffer
	if err := writeMarkdown(&md, res, mdStyle{}); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := writeJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "json": js.String()} {
		if strings.ContainsAny(out, "\x1b\x07\u009b") || strings.Contains(out, `\u001b`) || strings.Contains(out, `\u0007`) {
			t.Errorf("%s output keeps control sequences: %q", name, out)
		}
	}
	if want := "**Answer**\n\nFiles:\n\n- /out/a.png\n- /out/a.csv\n"; md.String() != want {
		t.Errorf("markdown = %q, want %q", md.String(), want)
	}
	var doc Result
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cell := doc.Cells[0]
	if cell.DurationMS != 1500 || *cell.Value != "42" || cell.Error.Type != "KeyError" ||
		len(cell.Figures) != 1 || len(cell.Files) != 2 || len(doc.Files) != 2 {
		t.Errorf("cell = %+v, files %v", cell, doc.Files)
	}
	if doc.Usage != (UsageResult{PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.01}) {
		t.Errorf("usage = %+v", doc.Usage)
	}
}

func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false, false)
	p.Phase("starting the sandbox")
	p.Event(agent.Event{Kind: agent.EventCellStart, Cell: 1})
	p.Event(agent.Event{Kind: agent.EventCellOutput, Cell: 1, Chunk: &kernel.Chunk{Text: "noise"}})
	p.Event(agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Duration: time.Second,
		Error: &kernel.Error{Kind: kernel.ErrException, Type: "KeyError" + evil}}})
	p.Event(agent.Event{Kind: agent.EventText, Text: "a"})
	p.Event(agent.Event{Kind: agent.EventText, Text: "b"})
	p.Event(agent.Event{Kind: agent.EventRetry, Text: "HTTP 503" + evil, Attempt: 2, Wait: 2 * time.Second})
	p.Stop()
	want := []string{
		"quarry: starting the sandbox",
		"quarry: cell 1 running",
		"quarry: cell 1 failed: KeyError]52;c;cHduZWQ=]0;title31m in 1.0s",
	}
	got := strings.Split(b.String(), "\n")
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b") {
		t.Errorf("progress keeps control sequences: %q", b.String())
	}
	if len(got) < 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasPrefix(got[2], "quarry: cell 1 failed: KeyError") {
		t.Errorf("progress =\n%s", b.String())
	}
	if strings.Count(b.String(), "writing the answer") != 1 || !strings.Contains(b.String(), "retry 2 in 2.0s") {
		t.Errorf("progress =\n%s", b.String())
	}
	var q bytes.Buffer
	quiet := newProgress(&q, true, false)
	quiet.Phase("x")
	quiet.Event(agent.Event{Kind: agent.EventCellStart, Cell: 1})
	quiet.Stop()
	if q.Len() != 0 {
		t.Errorf("quiet progress wrote %q", q.String())
	}
}

// --verbose shows the thinking as it streams, sanitized, on a line of its
// own; without it, one line says the model is thinking.
func TestProgressShowsThinking(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		p := newProgress(&b, false, false)
		p.verbose = verbose
		p.Event(agent.Event{Kind: agent.EventReasoning, Text: "Sum the "})
		p.Event(agent.Event{Kind: agent.EventReasoning, Text: "amounts." + evil})
		p.Event(agent.Event{Kind: agent.EventCellStart, Cell: 1})
		p.Stop()
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("control sequences: %q", out)
		}
		want := "quarry: the model is thinking\nquarry: cell 1 running\n"
		if verbose {
			want = "quarry: thinking:\nSum the amounts.\nquarry: cell 1 running\n"
		}
		if out != want {
			t.Errorf("verbose %v: progress = %q, want %q", verbose, out, want)
		}
	}
}

func TestMarkdownRenderedForTerminal(t *testing.T) {
	res := Result{Answer: "## Variance\n\n**Sales** is up" + evil, Files: []string{"/out/variance.png"}}
	var b bytes.Buffer
	if err := writeMarkdown(&b, res, mdStyle{render: true, width: 60, style: render.StyleDark}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "**Sales**") || !strings.Contains(out, "Sales") || !strings.Contains(out, "/out/variance.png") {
		t.Errorf("not rendered as Markdown:\n%s", out)
	}
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") || strings.Contains(out, "\u009b") {
		t.Errorf("untrusted escapes survived: %q", out)
	}
}
