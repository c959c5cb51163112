package headless_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	r := newRun(t, "", "demo", "-p", "--output-dir", out).withoutModel()
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
