package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/demo/demotest"
)

// quarry demo in the chat, with no key, no model server and no Ollama: the
// label stays in the status bar, the question asks itself, the cells run
// in the real sandbox (variance()'s table, the bridge in half-blocks), the
// answer holds the numbers of the shipped files and how to connect a
// model, and the workbook and the PDF are written and named.
// Nothing is contacted: every way out but the engine leads to a listener
// that counts connections.
func TestDemoChatTUI(t *testing.T) {
	requireChat(t)
	watch, connections := demotest.Watch(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	c := startChatEnv(t, dir, demotest.NoNetworkEnv(watch), []string{"demo", "--output-dir", out})

	const label = "demo: scripted model, real sandbox"
	s := c.waitFor("the demo's label", time.Minute, has(label, "sandbox"))
	if !strings.Contains(statusBar(s), label) {
		t.Errorf("the label is not in the status bar:\n%s", s)
	}
	s = c.waitFor("the answer", 3*time.Minute, has("Then ask about these files yourself", "sandbox ready"))
	t.Logf("screen after the answer:\n%s", s)
	rows := append(demotest.Rows(t, filepath.Join(out, "data")), demotest.Drivers(t, filepath.Join(out, "data"))[1:]...)
	for _, want := range append(rows, "OPENAI_API_KEY", "OPENAI_BASE_URL", "ollama pull", "quarry config init") {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q", want)
		}
	}
	// Then the report, written by itself and named.
	book, pdf := filepath.Join(out, "report.xlsx"), filepath.Join(out, "report.pdf")
	s = c.waitFor("the report", 2*time.Minute, has("Report written:", book, pdf))
	requireDemoReport(t, out)
	if !strings.Contains(statusBar(s), label) {
		t.Errorf("the label left the status bar:\n%s", statusBar(s))
	}

	// Above it the follow-up's cell and the chart's, the chart drawn in
	// half-blocks; at the top what the demo is, the question and cell 1's
	// table.
	scrollTo(c, "PPage", "cell 3 · done", `explain(v, "/data/ledger_q2.csv"`)
	scrollTo(c, "PPage", "figure ", "cell2-1.png", "▀")
	scrollTo(c, "PPage", "cell 2 · done", "fig = bridge(v)")
	c.keys("C-Home")
	c.waitFor("the top of the demo", 10*time.Second, has("This is quarry's demo", "Variance report: Q2 actuals against budget", "cell 1 · done", "11 rows × 9 columns"))
	c.keys("C-End")

	// Another question gets the script's honest refusal, not a computed answer.
	c.typeLine("Which quarter had more travel?")
	c.waitFor("the refusal", time.Minute, has("cannot answer “Which quarter had more travel?”", "sandbox ready"))

	c.keys("C-c")
	c.keys("C-c")
	c.waitExit()
	requireNoContainers(t, c.pid)
	if n := connections(); n != 0 {
		t.Errorf("the demo made %d connections to a model server, proxy or Ollama", n)
	}
	rec, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if err != nil || !strings.Contains(string(rec), `"scripted-demo"`) {
		t.Errorf("the session record does not name the scripted model (%v)", err)
	}
}

// scrollTo presses key until the screen holds every one of want.
func scrollTo(c *pane, key string, want ...string) {
	c.t.Helper()
	for range 6 {
		if has(want...)(c.screen()) {
			return
		}
		c.keys(key)
		time.Sleep(300 * time.Millisecond)
	}
	c.waitFor(strings.Join(want, ", "), 5*time.Second, has(want...))
}

// statusBar is the screen's status line: the one above the key help.
func statusBar(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) < 2 {
		return ""
	}
	return lines[len(lines)-2]
}
