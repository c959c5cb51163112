package render

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/quarry-cli/quarry/kernel"
)

func TestResultGolden(t *testing.T) {
	var out strings.Builder
	for i := 1; i <= 12; i++ {
		out.WriteString("line " + strings.Repeat("x", i*8) + "\n")
	}
	r := &kernel.Result{
		Stdout:   out.String(),
		Stderr:   "FutureWarning: \x1b[31mdeprecated\x1b[0m\n",
		Dropped:  2_500_000,
		Value:    &kernel.Value{Repr: "42"},
		Figures:  []kernel.File{{Name: "chart.png", Path: "/out/chart.png", Size: 23_456, Width: 640, Height: 480}},
		Files:    []kernel.File{{Name: "report\x1b]0;x\x07.csv", Path: "/out/report.csv", Size: 1_234_567}},
		Notes:    []string{"3 files skipped: over the size cap"},
		Duration: 1234 * time.Millisecond,
	}
	golden.RequireEqual(t, Result(r, ResultOptions{Width: 40, MaxLines: 4}))
}

func TestResultError(t *testing.T) {
	tb := strings.Repeat("  File \"<cell>\", line 1\n", 10) + "KeyError: 'dept'\n"
	r := &kernel.Result{
		Error:     &kernel.Error{Kind: kernel.ErrException, Type: "KeyError", Message: "'dept'", Traceback: tb},
		Value:     &kernel.Value{Repr: "not shown on error"},
		StateLost: true,
		Duration:  300 * time.Millisecond,
	}
	got := Result(r, ResultOptions{MaxLines: 3})
	for _, want := range []string{"✗ KeyError: 'dept'", "… 8 more lines", "KeyError: 'dept'", "variables defined so far are gone"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "not shown") {
		t.Error("value shown for a failed cell")
	}
	if s := ResultSummary(r); s != "KeyError: 'dept'" {
		t.Errorf("summary %q", s)
	}
	cases := map[kernel.ErrorKind]string{
		kernel.ErrTimeout:     "timed out after 300ms",
		kernel.ErrInterrupted: "interrupted",
		kernel.ErrOutOfMemory: "out of memory",
		kernel.ErrCrashed:     "the kernel crashed",
	}
	for kind, want := range cases {
		r := &kernel.Result{Error: &kernel.Error{Kind: kind}, Duration: 300 * time.Millisecond}
		if s := ResultSummary(r); !strings.HasPrefix(s, want) {
			t.Errorf("%s: %q, want prefix %q", kind, s, want)
		}
	}
}

func TestResultSanitizesEverything(t *testing.T) {
	evil := "\x1b]52;c;AAAA\x07\x1b[2J\x1b]0;t\x07\u009b6n\x1b[?1049h"
	r := &kernel.Result{
		Stdout:  "out" + evil + "\n",
		Stderr:  "err" + evil,
		Value:   &kernel.Value{Table: &kernel.Table{Columns: []string{"c" + evil}, Dtypes: []string{"object"}, Head: [][]string{{"v" + evil}}, Rows: 1, Cols: 1}},
		Figures: []kernel.File{{Name: "f" + evil + ".png", Size: 1}},
		Files:   []kernel.File{{Name: "g" + evil, Size: 1}},
		Notes:   []string{"n" + evil},
	}
	got := Result(r, ResultOptions{})
	assertClean(t, got, false)
	r.Value = nil
	r.Error = &kernel.Error{Kind: kernel.ErrException, Type: "E" + evil, Message: "m" + evil, Traceback: "tb" + evil}
	got = Result(r, ResultOptions{})
	assertClean(t, got, false)
	assertClean(t, ResultSummary(r), true)
	// With colour and links, only quarry's own SGR and OSC 8 may appear.
	got = Result(r, ResultOptions{Color: true, Links: true})
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\x1b]0;", "\u009b", "\x1b[?1049h"} {
		if strings.Contains(got, bad) {
			t.Errorf("output holds %q", bad)
		}
	}
}

func TestFoldLinesAndSizes(t *testing.T) {
	if got := FoldLines("a\nb\nc\nd\n", 2); got != "a\nb\n… 2 more lines" {
		t.Errorf("FoldLines: %q", got)
	}
	if got := FoldLines("a\nb\n", 2); got != "a\nb" {
		t.Errorf("FoldLines exact: %q", got)
	}
	if got := FoldLines("a\nb\nc", 2); got != "a\nb\n… 1 more line" {
		t.Errorf("FoldLines singular: %q", got)
	}
	sizes := map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_234_567: "1.2 MB", 5_000_000_000: "5.0 GB"}
	for n, want := range sizes {
		if got := HumanSize(n); got != want {
			t.Errorf("HumanSize(%d) = %q, want %q", n, got, want)
		}
	}
	if s := ResultSummary(&kernel.Result{Duration: 1500 * time.Millisecond, Files: make([]kernel.File, 2), Figures: make([]kernel.File, 1)}); s != "ok · 1.5s · 1 figure · 2 files" {
		t.Errorf("summary %q", s)
	}
}
