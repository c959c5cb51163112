package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// With a confirm hook the user decides per cell: run edited code, or skip,
// and the model is told which.
func TestConfirmEditsAndSkips(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("print('original')"),
		openaitest.ToolCalls("import os; os.remove('/data/x.csv')"),
	)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Text("done: " + r.LastToolResult())
	})
	k := echoKernel()
	cfg := testConfig(srv)
	var asked []int
	cfg.Confirm = func(ctx context.Context, cell int, code string) (string, bool, error) {
		asked = append(asked, cell)
		if strings.Contains(code, "os.remove") {
			return code, false, nil
		}
		return "print('edited')", true, nil
	}
	a := newAgent(t, cfg, k)
	ans, rec, err := run(t, a, "go")
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rec.all())
	}
	if got := k.Codes(); !slices.Equal(got, []string{"print('edited')"}) {
		t.Errorf("kernel ran %q, want only the edited code", got)
	}
	if !slices.Equal(asked, []int{1, 2}) {
		t.Errorf("confirm asked for cells %v, want [1 2]", asked)
	}
	if !strings.Contains(ans, "chose not to run") {
		t.Errorf("the model was not told the cell was skipped: %q", ans)
	}
	if len(rec.of(EventWarning)) != 1 {
		t.Errorf("want one warning for the skipped cell, got %+v", rec.of(EventWarning))
	}
}
