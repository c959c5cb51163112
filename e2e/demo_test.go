package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/demo/demotest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry demo -p with no key, no model server and no Ollama: exit 0, the
// report on standard output with its table, computed in the sandbox from
// the files the demo wrote into its session folder; nothing contacted.
func TestDemoHeadless(t *testing.T) {
	sandboxtest.Engine(t)
	watch, connections := demotest.Watch(t)
	out := filepath.Join(t.TempDir(), "demo")
	home := t.TempDir()
	r := newRun(t, "", "demo", "-p", "--output-dir", out).withoutModel().inHome(home)
	r.env = append(r.env, demotest.NoNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d, want 0; stdout:\n%s", code, r.stdout.String())
	}
	stdout := r.stdout.String()
	for _, want := range append(demotest.Rows(t, filepath.Join(out, "data")),
		"| department | q1 | q2 | change | change % |", "scripted", "OPENAI_API_KEY", "quarry config init",
		filepath.Join(out, "variance.csv"), filepath.Join(out, "figures", "cell2-1.png")) {
		if !strings.Contains(stdout, want) {
			t.Errorf("the answer lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(r.stderr.String(), "demo: scripted model, real sandbox") {
		t.Errorf("stderr does not say it is a demo:\n%s", r.stderr.String())
	}
	if n := connections(); n != 0 {
		t.Errorf("the demo made %d connections to a model server, proxy or Ollama", n)
	}
	rec, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if err != nil || !strings.Contains(string(rec), `"scripted-demo"`) {
		t.Errorf("the session record does not name the scripted model (%v):\n%.400s", err, rec)
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// Listed for what it is, and resumed with the configured model, not
	// the script: the demo's cells are replayed, so its variables answer.
	list := sessionsJSON(t, home)
	if len(list) != 1 || list[0].Model != "scripted-demo" || !strings.HasPrefix(list[0].Title, "Variance report: budget Q2") {
		t.Fatalf("quarry sessions --json = %+v", list)
	}
	srv := openaitest.New(t, openaitest.ToolCalls(`print("BY", by.change.to_dict())`))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("From the demo: " + req.LastToolResult())
	})
	r = newRun(t, srv.URL, "-p", "and by department?", "--resume", list[0].ID).inHome(home)
	q1, q2, _, _ := demotest.Budgets(t, filepath.Join(out, "data"))
	if code := r.exec(3 * time.Minute); code != 0 || !strings.Contains(r.stdout.String(), fmt.Sprintf("'Engineering': %d", q2["Engineering"]-q1["Engineering"])) {
		t.Errorf("resuming the demo: exit %d:\n%s", code, r.stdout.String())
	}
	for _, req := range srv.ChatRequests() {
		if req.Chat.Model != "gpt-fake" {
			t.Errorf("the resumed demo asked model %q, want the configured gpt-fake", req.Chat.Model)
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// --json: the same answer, its two cells and the figure.
	out2 := filepath.Join(t.TempDir(), "demo")
	r = newRun(t, "", "demo", "-p", "--json", "--output-dir", out2).withoutModel()
	r.env = append(r.env, demotest.NoNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var doc struct {
		Answer string
		Model  string
		Cells  []json.RawMessage
		Files  []string
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout.String())
	}
	if doc.Model != "scripted-demo" || len(doc.Cells) != 2 || !strings.Contains(doc.Answer, demotest.Rows(t, filepath.Join(out2, "data"))[0]) {
		t.Errorf("--json: model %q, %d cells, answer:\n%s", doc.Model, len(doc.Cells), doc.Answer)
	}
}
