package demo

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/secret"
)

// What the model is told of the two cells, in the agent's format (the
// end-to-end tests run the real cells).
const (
	loadResult   = "[value]\ntable: 11 rows × 9 columns\n | account (object) | line (object) | kind (object) | actual (float64) | budget (float64) | variance (float64) | variance_pct (float64) | effect (object) | material (bool)\n0 | 4000 | Product sales | revenue | 336500.0 | 315000.0 | 21500.0 | 6.8 | better | True"
	reportResult = "[stdout]\nProfit: actual 109,900.00 against budget 99,600.00: +10,300.00 (+10.3%), better\n4000 Product sales: +21,500.00 (+6.8%), better\n6500 Recruiting: +1,800.00 (no budget), worse\n[figures (shown to the user)]\n/output/figures/cell2-1.png"
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
	done := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult, reportResult}})
	if done.Code != "" {
		t.Errorf("the answer runs code: %s", done.Code)
	}
	for _, want := range []string{
		"- Profit: actual 109,900.00 against budget 99,600.00: +10,300.00 (+10.3%), better\n\n**Material lines**",
		"- 4000 Product sales: +21,500.00 (+6.8%), better\n- 6500 Recruiting: +1,800.00 (no budget), worse\n",
		"report.xlsx", "report.pdf", "scripted", "OPENAI_API_KEY", "OPENAI_BASE_URL", "Ollama", "quarry config init",
		"`quarry '/tmp/my data/actuals_q2.csv' '/tmp/my data/budget_q2.csv'`",
	} {
		if !strings.Contains(done.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, done.Text)
		}
	}
	// Every text that leaves a session is masked: the advice must survive it.
	if masked := secret.New().Mask(done.Text); masked != done.Text {
		t.Errorf("masking changes the answer:\n%s", masked)
	}
	if strings.Contains(done.Text, "cell2-1.png") {
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
// both, months as columns.
func TestFilesMatchTheScript(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	keys := map[string]int{}
	for _, p := range Paths(dir) {
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
	if err := WriteFiles(dir); err == nil {
		t.Error("WriteFiles replaced existing files")
	}
}
