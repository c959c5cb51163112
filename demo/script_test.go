package demo

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/secret"
)

// What the model is told of the two cells, in the agent's format (the
// end-to-end tests run the real cells).
const (
	loadResult    = "[value]\ntable: 11 rows × 9 columns\n | account (object) | line (object) | kind (object) | actual (float64) | budget (float64) | variance (float64) | variance_pct (float64) | effect (object) | material (bool)\n0 | 4000 | Product sales | revenue | 336500.0 | 315000.0 | 21500.0 | 6.8 | better | True"
	reportResult  = "[stdout]\nProfit: actual 109,900.00 against budget 99,600.00: +10,300.00 (+10.3%), better\n4000 Product sales: +21,500.00 (+6.8%), better\n6500 Recruiting: +1,800.00 (no budget), worse\n[figures (shown to the user)]\n/output/figures/cell2-1.png"
	explainResult = "[stdout]\nWhy is 6100 Cloud hosting over budget? +4,300.00 against budget:\nby vendor: AWS +2,500.00 (58%); Datadog +1,500.00 (35%)\nby department: Engineering +2,400.00 (56%)\n[stderr]\nexplain() notes:\n- the detail's scenario column says which lines are budget"
)

func TestScriptRunsTheReport(t *testing.T) {
	s := &Script{Dir: "/tmp/my data"}
	first := s.Reply(agent.ScriptTurn{Prompt: Question})
	if !strings.Contains(first.Code, `variance("/data/actuals_q2.csv", "/data/budget_q2.csv")`) {
		t.Errorf("the first cell does not call variance() on both files:\n%s", first.Code)
	}
	second := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult}})
	if !strings.Contains(second.Code, "bridge(v)") || !strings.Contains(second.Text, "11 rows") {
		t.Errorf("second step: %+v", second)
	}
	third := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult, reportResult}})
	if !strings.Contains(third.Code, `explain(v, "/data/ledger_q2.csv"`) || !strings.Contains(third.Text, "furthest over budget, and why?") {
		t.Errorf("third step, the follow-up: %+v", third)
	}
	done := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult, reportResult, explainResult}})
	if done.Code != "" {
		t.Errorf("the answer runs code: %s", done.Code)
	}
	for _, want := range []string{
		"- Profit: actual 109,900.00 against budget 99,600.00: +10,300.00 (+10.3%), better\n\n**Material lines**",
		"- 4000 Product sales: +21,500.00 (+6.8%), better\n- 6500 Recruiting: +1,800.00 (no budget), worse\n",
		"\n**Why is 6100 Cloud hosting over budget? +4,300.00 against budget:**\n\n- by vendor: AWS +2,500.00 (58%); Datadog +1,500.00 (35%)\n- by department: Engineering +2,400.00 (56%)\n",
		"report.xlsx", "report.pdf", "scripted", "OPENAI_API_KEY", "OPENAI_BASE_URL", "Ollama", "quarry config init",
		"`quarry '/tmp/my data/actuals_q2.csv' '/tmp/my data/budget_q2.csv' '/tmp/my data/ledger_q2.csv'`",
	} {
		if !strings.Contains(done.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, done.Text)
		}
	}
	// Every text that leaves a session is masked: the advice must survive it.
	if masked := secret.New().Mask(done.Text); masked != done.Text {
		t.Errorf("masking changes the answer:\n%s", masked)
	}
	if strings.Contains(done.Text, "cell2-1.png") || strings.Contains(done.Text, "explain() notes") {
		t.Errorf("the answer took the figure section for data:\n%s", done.Text)
	}
}

func TestScriptSaysWhenACellFailed(t *testing.T) {
	s := &Script{}
	r := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{"[error]\nFileNotFoundError: /data/actuals_q2.csv"}})
	if r.Code != "" || !strings.Contains(r.Text, "no numbers") || strings.Contains(r.Text, "Profit") {
		t.Errorf("after a failed cell: %+v", r)
	}
}

func TestScriptAnswersOtherQuestionsHonestly(t *testing.T) {
	r := (&Script{}).Reply(agent.ScriptTurn{Prompt: "which department grew most?"})
	if r.Code != "" || !strings.Contains(r.Text, "script") || !strings.Contains(r.Text, "which department grew most?") ||
		!strings.Contains(r.Text, "OPENAI_API_KEY") {
		t.Errorf("another question: %+v", r)
	}
}

// The files the cells read are the files shipped: the same accounts in
// both, months as columns; the ledger's lines add up to the actuals.
func TestFilesMatchTheScript(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	keys := map[string]int{}
	for _, p := range Paths(dir)[:2] {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if strings.Join(rows[0], ",") != "account,line,Apr 2026,May 2026,Jun 2026" {
			t.Errorf("%s header %q", p, rows[0])
		}
		for _, r := range rows[1:] {
			keys[r[0]+"/"+r[1]]++
		}
		if !strings.Contains(loadCode, "/data/"+filepath.Base(p)) {
			t.Errorf("the code does not read %s", filepath.Base(p))
		}
	}
	for k, n := range keys {
		if n != 2 {
			t.Errorf("%s is in %d of the two files", k, n)
		}
	}
	checkLedger(t, Paths(dir))
	if err := WriteFiles(dir); err == nil {
		t.Error("WriteFiles replaced existing files")
	}
}

// checkLedger: the ledger's actual lines add up, to the cent, to the
// actuals of each cost account and month, its budget lines to the
// budget's, and the follow-up's cell reads it.
func checkLedger(t *testing.T, paths []string) {
	t.Helper()
	read := func(p string) [][]string {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s: %v", p, err)
		}
		return rows
	}
	months := map[string]int{"2026-04": 2, "2026-05": 3, "2026-06": 4}
	sums := map[string]map[string]int64{"Actual": {}, "Budget": {}}
	ledger := read(paths[2])
	if strings.Join(ledger[0], ",") != "date,journal,account,account_name,vendor,department,scenario,amount,memo" {
		t.Fatalf("ledger header %q", ledger[0])
	}
	for _, r := range ledger[1:] {
		cents, err := strconv.ParseFloat(r[7], 64)
		if err != nil || months[r[0][:7]] == 0 || sums[r[6]] == nil {
			t.Fatalf("ledger line %q: %v", r, err)
		}
		sums[r[6]][r[2]+"/"+r[0][:7]] += int64(math.Round(cents * 100))
	}
	for side, p := range map[string]string{"Actual": paths[0], "Budget": paths[1]} {
		for _, r := range read(p)[1:] {
			if !strings.HasPrefix(r[0], "5") && !strings.HasPrefix(r[0], "6") {
				continue // revenue: the ledger holds the costs
			}
			for m, col := range months {
				want, _ := strconv.ParseFloat(r[col], 64)
				if got := sums[side][r[0]+"/"+m]; got != int64(want*100) {
					t.Errorf("%s %s %s: the ledger's lines add up to %d cents, the file says %v", side, r[0], m, got, want)
				}
			}
		}
	}
	if !strings.Contains(explainCode, "/data/"+filepath.Base(paths[2])) {
		t.Errorf("the follow-up does not read %s", filepath.Base(paths[2]))
	}
}
