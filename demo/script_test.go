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
	loadResult   = "[value]\ntable: 10 rows × 6 columns\n | department (object) | category (object) | q1 (int64) | q2 (int64) | change (int64) | change % (float64)\n0 | Engineering | Salaries | 240000 | 252000 | 12000 | 5.0"
	reportResult = "[stdout]\nTotal: Q1 639,000 to Q2 665,500, +26,500 (+4.1%)\nLargest increase: Engineering, Salaries +12,000\n[value]\ntable: 2 rows × 4 columns\ndepartment | q1 (int64) | q2 (int64) | change (int64) | change % (float64)\nOperations | 48000 | 46500 | -1500 | -3.1\nEngineering | 288000 | 309000 | 21000 | 7.3\n[figures (shown to the user)]\n/output/figures/cell2-1.png"
)

func TestScriptRunsTheReport(t *testing.T) {
	s := &Script{Dir: "/tmp/my data"}
	first := s.Reply(agent.ScriptTurn{Prompt: Question})
	if !strings.Contains(first.Code, "/data/budget_q1.csv") || !strings.Contains(first.Code, "/data/budget_q2.csv") {
		t.Errorf("the first cell does not read both files:\n%s", first.Code)
	}
	second := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult}})
	if second.Code == "" || !strings.Contains(second.Text, "10 rows") {
		t.Errorf("second step: %+v", second)
	}
	done := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{loadResult, reportResult}})
	if done.Code != "" {
		t.Errorf("the answer runs code: %s", done.Code)
	}
	for _, want := range []string{
		"- Total: Q1 639,000 to Q2 665,500, +26,500 (+4.1%)",
		"| department | q1 | q2 | change | change % |",
		"| Engineering | 288,000 | 309,000 | 21,000 | 7.3 |",
		"| Operations | 48,000 | 46,500 | -1,500 | -3.1 |",
		"scripted", "OPENAI_API_KEY", "OPENAI_BASE_URL", "Ollama", "quarry config init",
		"`quarry '/tmp/my data/budget_q1.csv' '/tmp/my data/budget_q2.csv'`",
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
	r := s.Reply(agent.ScriptTurn{Prompt: Question, Results: []string{"[error]\nFileNotFoundError: /data/budget_q1.csv"}})
	if r.Code != "" || !strings.Contains(r.Text, "no numbers") || strings.Contains(r.Text, "Total") {
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

// The files the cells read are the files shipped, with the columns the
// code uses and the same rows in both quarters.
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
		if strings.Join(rows[0], ",") != "department,category,budget" {
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

func TestGroupDigits(t *testing.T) {
	for in, want := range map[string]string{"264000": "264,000", "-9000": "-9,000", "1500.5": "1,500.5", "999": "999", "5.0": "5.0", "1234567": "1,234,567"} {
		if got := groupDigits(in); got != want {
			t.Errorf("groupDigits(%s) = %s, want %s", in, got, want)
		}
	}
}
