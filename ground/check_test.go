package ground

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// A claim says what it matched, in the names the JSON contract uses; a
// profile fact has no cell.
func TestClaimFields(t *testing.T) {
	r := kernel.Result{Stdout: "growth 0.12503\n", Value: &kernel.Value{Repr: "np.float64(98765.4)"}}
	srcs := append(FromResult(2, r), FromProfile(kernel.Profile{Name: "q1.csv", Rows: 6, Columns: make([]kernel.Column, 3)}))
	cs := Check(Input{Answer: "Growth was 12.5% on 98,765.40 over 6 rows; 13.2% is a guess.", Sources: srcs})
	if len(cs) != 4 {
		t.Fatalf("claims %q, want 4", claimTexts(cs))
	}
	want := []struct {
		text   string
		value  float64
		cell   int
		source string
	}{
		{"12.5%", 0.125, 2, "stdout line 1: growth 0.12503"},
		{"98,765.40", 98765.4, 2, "value line 1: np.float64(98765.4)"},
		{"6", 6, 0, "q1.csv: 6 rows"},
		{"13.2%", 0.132, -1, ""},
	}
	for i, w := range want {
		c := cs[i]
		if c.Text != w.text || c.Value != w.value || c.Grounded != (w.cell >= 0) {
			t.Errorf("claim %d: %q %v grounded=%v, want %q %v", i, c.Text, c.Value, c.Grounded, w.text, w.value)
		}
		if w.cell > 0 && (c.Cell == nil || *c.Cell != w.cell) || w.cell <= 0 && c.Cell != nil {
			t.Errorf("claim %d: cell %v, want %d", i, c.Cell, w.cell)
		}
		if got := ""; c.Source != nil {
			got = *c.Source
			if got != w.source {
				t.Errorf("claim %d: source %q, want %q", i, got, w.source)
			}
		} else if w.source != "" {
			t.Errorf("claim %d: no source, want %q", i, w.source)
		}
		if got := "Growth was 12.5% on 98,765.40 over 6 rows; 13.2% is a guess."[c.Start:c.End]; got != c.Text {
			t.Errorf("claim %d: offsets give %q, text %q", i, got, c.Text)
		}
	}
	b, _ := json.Marshal(cs[3])
	if !strings.Contains(string(b), `"cell":null`) || !strings.Contains(string(b), `"source":null`) {
		t.Errorf("an unverified claim's JSON %s should carry cell and source as null", b)
	}
	if u := Unverified(cs); len(u) != 1 || u[0].Text != "13.2%" {
		t.Errorf("unverified %q, want [13.2%%]", claimTexts(u))
	}
}

// Numbers in stdout, in a table and in text columns are all read.
func TestSourceNumbers(t *testing.T) {
	for _, c := range []struct {
		line string
		want []float64
	}{
		{"total 1,234.50 and -0.125", []float64{1234.5, -0.125}},
		{"1.234568e+06 12.5% 2025-01-15", []float64{1234568, 0.125, 2025, 1, 15}},
		{"x-1 (3)", []float64{1, 3}},
	} {
		got := scanSource(c.line)
		if len(got) != len(c.want) {
			t.Errorf("%q: %v, want %v", c.line, got, c.want)
			continue
		}
		for i := range got {
			if d := got[i].v - c.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("%q: %v, want %v", c.line, got, c.want)
			}
		}
	}
}
