package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

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

// A confirm hook that fails while the turn goes on (the prompt was closed)
// ends the turn: the model must not be asked again and again for cells that
// can never be confirmed.
func TestConfirmFailureEndsTheTurn(t *testing.T) {
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.ToolCalls("print(1)", "print(2)") })
	cfg := testConfig(srv)
	cfg.Confirm = func(context.Context, int, string) (string, bool, error) {
		return "", false, context.Canceled // what ui.Inbox.Confirm returns once the UI is gone
	}
	k := echoKernel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rec := &recorder{}
	a := newAgent(t, cfg, k)
	_, err := a.Run(ctx, "go", rec.emit)
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindConfirm {
		t.Fatalf("Run error = %v, want a confirm error\n%s", err, rec.all())
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	if len(k.Codes()) != 0 {
		t.Errorf("ran %q without confirmation", k.Codes())
	}
	// The conversation stays valid for the next question.
	srv.Push(openaitest.Text("ok"))
	if _, err := a.Run(ctx, "again", rec.emit); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if last := reqs[len(reqs)-1]; len(last.UnansweredCalls()) != 0 {
		t.Errorf("unanswered tool calls %v", last.UnansweredCalls())
	}
}
