package ground

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// The second test set is quarry's own scripted answers: the demo's and
// those of the repository's tests whose fake model quotes what the cells
// printed (testdata/scripted.json, written by the session's
// TestScriptedAnswersFixture from real runs in the sandbox), and the
// answers the exports' and the chat's tests check. Every number a cell
// printed must ground; every number the model worked out itself (listed as
// its own) must not; and each number changed in one digit (its first, its
// last) must not either.

type scriptedAnswer struct {
	Name     string   `json:"name"`
	Origin   string   `json:"origin"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Own      []string `json:"own"`
	Sources  []Source `json:"sources"`
}

// goldenAnswers are the answers of the exports' and the chat's tests, with
// the outputs they are checked against there.
var goldenAnswers = []scriptedAnswer{
	{Name: "export: checked answer", Origin: "export/numbers_test.go checkedAnswer", Question: "revenue by region",
		Answer: "North has **90,000** and South 80,000; together 170,000, up 6.3%.", Own: []string{"170,000", "6.3%"},
		Sources: FromResult(1, kernel.Result{Value: &kernel.Value{Repr: "revenue", Table: table("region", []string{"North", "South"},
			[]string{"revenue"}, []string{i64}, []string{"90000"}, []string{"80000"})}})},
	{Name: "export: hostile answer", Origin: "export/helpers_test.go hostileAnswer", Question: "Variance by region",
		Answer: "North grew **12.5%**.\n\n<img src=x onerror=alert(1)>\n\n![tracker](http://127.0.0.1:9/pixel.png)\n\n[click](javascript:alert(2))\n\n| region | change |\n|---|---|\n| North | 10,000 |\n",
		Own:    []string{"12.5%", "10,000"},
		Sources: append(FromResult(1, kernel.Result{Stdout: "TOTAL 270001\x1b[31m red\x1b[0m\n", Value: &kernel.Value{Repr: "region\nNorth    90000",
			Table: table("region", []string{"North", "South", "West"}, []string{"revenue", "note"}, []string{i64, obj},
				[]string{"90000", "<b>bold</b>"}, []string{"80000", "a|b"}, []string{"100000", "ok"})}}),
			FromProfile(kernel.Profile{Name: "q1.csv", Rows: 3, Columns: make([]kernel.Column, 2)}))},
	{Name: "export: report commentary", Origin: "export/report_helpers_test.go knownAnswer (export/report_test.go, the report's Commentary)",
		Question: "Variance report for Q2, with a bridge",
		Answer:   "Profit came in at **94,299.45** against a budget of 78,000.00: 16,299.45 better.\n\n- Cloud was 9,999 under budget.\n- Product sales beat the plan.\n",
		Own:      []string{"9,999"},
		// reportRecord's variance() table (knownLines), as the cell returns it
		Sources: FromResult(1, kernel.Result{Value: &kernel.Value{Repr: "table", Table: table("", []string{"0", "1", "2", "3", "4", "5"},
			[]string{"code", "line", "kind", "actual", "budget", "variance", "variance_pct", "effect", "material"},
			[]string{obj, obj, obj, f64, f64, f64, f64, obj, "bool"},
			[]string{"4000", "Product sales", "revenue", "120000.0", "100000.0", "20000.0", "20.0", "better", "True"},
			[]string{"4100", "Services", "revenue", "45000.0", "48000.0", "-3000.0", "-6.25", "worse", "True"},
			[]string{"5000", "Salaries", "cost", "60000.0", "58000.0", "2000.0", "3.4482758621", "worse", "False"},
			[]string{"5100", "Cloud", "cost", "9500.0", "12000.0", "-2500.0", "-20.8333333333", "better", "True"},
			[]string{"5200", "New tool", "cost", "1200.55", "0.0", "1200.55", "nan", "worse", "True"},
			[]string{"", "Total", "profit", "94299.45", "78000.0", "16299.45", "20.8967307692", "better", "True"})}})},
	{Name: "export: commentary runs", Origin: "export/report_unit_test.go TestCommentaryRuns", Question: "Summary of the quarter",
		Answer: "## Summary\n\nRevenue rose **12.5%** to 1,234.\n\n1. Costs `fell`\n2. Travel 99 below\n\n| line | change |\n|---|---|\n| Cloud | 4,300 |\n",
		Own:    []string{"1,234", "99"},
		// the test marks 12.5% and 4,300 grounded, 1,234 not: outputs that say so
		Sources: []Source{printed(1, "revenue growth 12.5%\n"), tableSrc(2, table("line", []string{"Cloud", "Travel"},
			[]string{"change"}, []string{i64}, []string{"4300"}, []string{"-120"}))}},
	{Name: "chat: numbers golden", Origin: "ui/numbers_test.go numbersAnswer", Question: "Which region leads?",
		Answer: "**East** leads with 15,000.00, then North with 1,200.50; together they make 16,500 (94.2% of the total).", Own: []string{"16,500", "94.2%"},
		Sources: FromResult(1, kernel.Result{Value: &kernel.Value{Repr: "table", Table: table("", []string{"0", "1", "2", "3"},
			[]string{"region", "revenue"}, []string{obj, f64}, []string{"North", "1200.5"}, []string{"South", "980.25"}, []string{"East", "15000.0"}, []string{"West", "77.7"})}})},
	{Name: "chat: resumed answer", Origin: "ui/numbers_test.go TestResumedAnswerKeepsItsMarks",
		Answer: "North leads with **90,000**, about 93% of it.", Own: []string{"93%"}, Sources: []Source{printed(1, "north 90000\n")}},
}

func loadScripted(t *testing.T) []scriptedAnswer {
	t.Helper()
	b, err := os.ReadFile("testdata/scripted.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []scriptedAnswer
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return append(out, goldenAnswers...)
}

// digitPlants are the claim's text with one digit changed: its first and
// its last (one plant when they are the same digit).
func digitPlants(text string) []string {
	var at []int
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	var out []string
	for _, i := range slices.Compact([]int{at[0], at[len(at)-1]}) {
		d := text[i] + 1
		if d > '9' {
			d = text[i] - 1
		}
		out = append(out, text[:i]+string(d)+text[i+1:])
	}
	return out
}

func TestScriptedRates(t *testing.T) {
	set := loadScripted(t)
	var right, rightOK, own, ownOK, planted, plantedOK int
	for _, a := range set {
		in := Input{Answer: a.Answer, Question: a.Question, Sources: a.Sources}
		cs := Check(in)
		for k, c := range cs {
			if slices.Contains(a.Own, c.Text) {
				own++
				if c.Grounded {
					t.Errorf("%s: %q, the model's own, grounded in %s", a.Name, c.Text, *c.Source)
				} else {
					ownOK++
				}
				continue
			}
			right++
			if !c.Grounded {
				t.Errorf("%s (%s): %q not grounded\nanswer: %s\n%s", a.Name, a.Origin, c.Text, a.Answer, show(cs))
				continue
			}
			rightOK++
			for _, p := range digitPlants(c.Text) {
				planted++
				pin := in
				pin.Answer = a.Answer[:c.Start] + p + a.Answer[c.End:]
				pc := Check(pin)
				if len(pc) != len(cs) || pc[k].Text != p {
					t.Errorf("%s: planting %q for %q changed the claims: %q", a.Name, p, c.Text, claimTexts(pc))
					continue
				}
				if pc[k].Grounded {
					t.Errorf("%s: planted %q (for %q) grounded in %s", a.Name, p, c.Text, *pc[k].Source)
				} else {
					plantedOK++
				}
			}
		}
		for _, o := range a.Own {
			if !slices.ContainsFunc(cs, func(c Claim) bool { return c.Text == o }) {
				t.Errorf("%s: %q, listed as the model's own, is no claim: %q", a.Name, o, claimTexts(cs))
			}
		}
	}
	t.Logf("scripted set: %d answers; numbers the cells printed %d, grounded %d (false flags %.1f%%); the model's own %d, unverified %d; planted %d, flagged %d (%.1f%%)",
		len(set), right, rightOK, 100*float64(right-rightOK)/float64(max(right, 1)), own, ownOK, planted, plantedOK, 100*float64(plantedOK)/float64(max(planted, 1)))
	if right < 50 {
		t.Errorf("the scripted set has %d numbers the cells printed, want at least 50", right)
	}
}
