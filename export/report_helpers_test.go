package export

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/session"
)

func pct(v float64) *float64 { return &v }

// knownLines are a variance() table as the kernel reports it: revenue
// above budget (better), below (worse), a cost above (worse) but not
// material, a cost below (better), a line with no budget, and the Total.
var knownLines = []kernel.VarianceLine{
	{Label: []string{"4000", "Product sales"}, Kind: "revenue", Actual: 120000, Budget: 100000, Variance: 20000, Pct: pct(20), Effect: "better", Material: true},
	{Label: []string{"4100", "Services"}, Kind: "revenue", Actual: 45000, Budget: 48000, Variance: -3000, Pct: pct(-6.25), Effect: "worse", Material: true},
	{Label: []string{"5000", "Salaries"}, Kind: "cost", Actual: 60000, Budget: 58000, Variance: 2000, Pct: pct(3.4482758621), Effect: "worse"},
	{Label: []string{"5100", "Cloud"}, Kind: "cost", Actual: 9500, Budget: 12000, Variance: -2500, Pct: pct(-20.8333333333), Effect: "better", Material: true},
	{Label: []string{"5200", "New tool"}, Kind: "cost", Actual: 1200.55, Budget: 0, Variance: 1200.55, Effect: "worse", Material: true},
	{Label: []string{"", "Total"}, Kind: "profit", Actual: 94299.45, Budget: 78000, Variance: 16299.45, Pct: pct(20.8967307692), Effect: "better", Material: true, Total: true},
}

const knownAnswer = "Profit came in at **94,299.45** against a budget of 78,000.00: 16,299.45 better.\n\n" +
	"- Cloud was 9,999 under budget.\n- Product sales beat the plan.\n"

// reportRecord writes a session folder whose record holds a variance()
// table (lines), the bridge drawn from it, a saved table (csv: the file's
// contents, or none) and knownAnswer with its numbers checked: 9,999 is in
// no cell's output.
func reportRecord(t testing.TB, lines []kernel.VarianceLine, csv string) string {
	t.Helper()
	return reportRecordOf(t, &kernel.Variance{Labels: []string{"code", "line"}, Lines: lines, Rows: len(lines), MaterialPct: 5,
		Periods: []string{"Apr 2026", "Jun 2026"}, Period: "the periods Apr–Jun 2026", BottomLine: "profit",
		Notes:   []string{"inferred kinds: 4000–4999 revenue, 5000–5999 cost", "5200 New tool has no budget"},
		Sources: map[string]string{"actual": "actuals_q2.csv", "budget": "budget_q2.csv"}}, csv)
}

// reportRecordOf is reportRecord with the variance table given whole.
func reportRecordOf(t testing.TB, v *kernel.Variance, csv string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261129-173235-3761b5")
	if err := os.MkdirAll(filepath.Join(dir, "figures"), 0o700); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	add := func(e session.Entry) {
		e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	add(session.Entry{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Model: "gpt-fake"})
	for _, n := range []string{"actuals_q2.csv", "budget_q2.csv"} {
		add(session.Entry{Kind: session.EntryInput, Input: &session.Input{Name: n, Path: "/home/ana/" + n, Size: 2048,
			SHA256: strings.Repeat("0123456789abcdef", 4)}})
	}
	add(session.Entry{Kind: session.EntryQuestion, Text: "Variance report for Q2, with a bridge"})
	add(session.Entry{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Status: session.CellOK,
		Code:   "v = variance('/data/actuals_q2.csv', '/data/budget_q2.csv')\nv",
		Result: kernel.Result{Report: &kernel.Report{Variance: v}}}})
	fig := "figures/cell2-1.png"
	if err := os.WriteFile(filepath.Join(dir, fig), figureBytes(t, 900, 500), 0o600); err != nil {
		t.Fatal(err)
	}
	res := kernel.Result{Figures: []kernel.File{{Name: fig, Size: 1000, Width: 900, Height: 500}},
		Report: &kernel.Report{Bridge: &kernel.Bridge{Figure: 0, Aspect: 1.8, File: fig, BottomLine: "profit", Gap: 16299.45}}}
	if csv != "" {
		if err := os.WriteFile(filepath.Join(dir, "variance.csv"), []byte(csv), 0o600); err != nil {
			t.Fatal(err)
		}
		res.Files = []kernel.File{{Name: "variance.csv", Size: int64(len(csv))}}
	}
	add(session.Entry{Kind: session.EntryCell, Cell: &session.Cell{Num: 2, Status: session.CellOK,
		Code: "fig = bridge(v)\nv.to_csv('/output/variance.csv', index=False)", Result: res}})
	var claims []ground.Claim
	cell := 1
	for _, n := range []struct {
		text     string
		grounded bool
	}{{"94,299.45", true}, {"78,000.00", true}, {"16,299.45", true}, {"9,999", false}} {
		at := strings.Index(knownAnswer, n.text)
		c := ground.Claim{Text: n.text, Grounded: n.grounded, Start: at, End: at + len(n.text)}
		if n.grounded {
			c.Cell = &cell
		}
		claims = append(claims, c)
	}
	add(session.Entry{Kind: session.EntryAnswer, Text: knownAnswer, Numbers: claims})
	if err := os.WriteFile(filepath.Join(dir, session.RecordName), append(bytes.Join(out, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeReport builds the record's workbook and PDF in a real sandbox.
func writeReport(t testing.TB, dir string, formats ...Format) []string {
	t.Helper()
	b := session.Builder{Config: config.Config{}, Engine: sandboxtest.Engine(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	files, err := WriteReport(ctx, loadRecord(t, dir), b, ReportOptions{Formats: formats, Paper: "A4"})
	if err != nil {
		t.Fatalf("WriteReport: %v", err)
	}
	return files
}

// withSources rewrites a record's first entry as a session that had the
// databases connected.
func withSources(t testing.TB, dir string, srcs ...session.RecordedSource) {
	t.Helper()
	path := filepath.Join(dir, session.RecordName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	var e session.Entry
	if err := json.Unmarshal(first, &e); err != nil {
		t.Fatal(err)
	}
	if e.Settings == nil {
		e.Settings = &session.Settings{}
	}
	e.Settings.Sources = srcs
	first, err = json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(append(first, '\n'), rest...), 0o600); err != nil {
		t.Fatal(err)
	}
}
