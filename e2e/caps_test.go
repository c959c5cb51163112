package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// When the file cap cuts what a cell wrote, -p says so on stderr and
// --json in the cell's notes, as the chat does under the cell.
func TestFileCapNoteReachesHeadless(t *testing.T) {
	sandboxtest.Engine(t)
	const code = "import os\nos.makedirs('/output/many', exist_ok=True)\n" +
		"for i in range(1100):\n    open('/output/many/f%04d.txt' % i, 'w').write('x')\nprint('MADE')"
	for _, jsonOut := range []bool{false, true} {
		srv := openaitest.New(t, openaitest.ToolCalls(code), openaitest.Text("Made them."))
		args := []string{"-p", "make many files"}
		if jsonOut {
			args = append(args, "--json")
		}
		r := newRun(t, srv.URL, args...)
		if code := r.exec(2 * time.Minute); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !jsonOut {
			if !strings.Contains(r.stderr.String(), "only 1000 reported") {
				t.Errorf("stderr lacks the cap note:\n%s", r.stderr.String())
			}
			continue
		}
		var res struct {
			Cells []struct {
				Files []string `json:"files"`
				Notes []string `json:"notes"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Cells) != 1 || !strings.Contains(strings.Join(res.Cells[0].Notes, "\n"), "only 1000 reported") {
			t.Errorf("--json: %d cells, notes %q", len(res.Cells), res.Cells[0].Notes)
		}
	}
}
