package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

func TestUndoTakesBackTheLastQuestion(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("a = 1"), openaitest.Text("a is set."),
		openaitest.ToolCalls("b = 2", "c = 3"), openaitest.Text("b and c are set."),
		openaitest.ToolCalls("d = 4"), openaitest.Text("d is set."),
	)
	a := newAgent(t, testConfig(srv), echoKernel())
	for _, q := range []string{"Set a.", "Set b and c."} {
		if _, rec, err := run(t, a, q); err != nil {
			t.Fatalf("%s: %v\n%s", q, err, rec.all())
		}
	}
	q, ok := a.Undo()
	if !ok || q != "Set b and c." {
		t.Fatalf("Undo() = %q, %v", q, ok)
	}
	_, rec, err := run(t, a, "Set d.")
	if err != nil {
		t.Fatal(err)
	}
	// The cells of the undone question are not counted: d's cell is the second.
	if done := rec.of(EventCellDone); len(done) != 1 || done[0].Cell != 2 {
		t.Errorf("cell after undo: %+v", done)
	}
	reqs := srv.ChatRequests()
	var roles []string
	for _, m := range reqs[len(reqs)-2].Messages() {
		roles = append(roles, m.Role+":"+strings.TrimSpace(m.Content))
	}
	want := []string{"user:Set a.", "assistant:", "tool:[stdout]\nran: a = 1", "assistant:a is set.", "user:Set d."}
	if got := roles[1:]; !slices.Equal(got, want) {
		t.Errorf("context after undo:\n%q\nwant\n%q", got, want)
	}
	// Twice more: the last of them finds nothing to take back.
	if q, ok := a.Undo(); !ok || q != "Set d." {
		t.Fatalf("second Undo() = %q, %v", q, ok)
	}
	if q, ok := a.Undo(); !ok || q != "Set a." {
		t.Fatalf("third Undo() = %q, %v", q, ok)
	}
	if len(a.history) != 0 || a.cells != 0 {
		t.Errorf("after undoing everything: %d history entries, %d cells", len(a.history), a.cells)
	}
	if _, ok := a.Undo(); ok {
		t.Error("Undo with no question left reported one")
	}
}

func TestUndoAfterResetFindsNothing(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("Hello."))
	a := newAgent(t, testConfig(srv), echoKernel())
	if _, _, err := run(t, a, "Hi"); err != nil {
		t.Fatal(err)
	}
	a.Reset()
	if q, ok := a.Undo(); ok {
		t.Errorf("Undo after Reset returned %q", q)
	}
}

func TestUndoPastTurnsTheBudgetDropped(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("One."), openaitest.Text("Two."))
	cfg := testConfig(srv)
	cfg.ContextBudget = 1 // every older turn is dropped from the context
	a := newAgent(t, cfg, echoKernel())
	for _, q := range []string{"First?", "Second?"} {
		if _, _, err := run(t, a, q); err != nil {
			t.Fatal(err)
		}
	}
	if q, ok := a.Undo(); !ok || q != "Second?" || len(a.history) != 0 {
		t.Fatalf("Undo() = %q, %v; history %d entries", q, ok, len(a.history))
	}
	if q, ok := a.Undo(); !ok || q != "First?" {
		t.Errorf("the question the budget dropped: Undo() = %q, %v", q, ok)
	}
}

// Turns loaded from a resumed session's record can be taken back too.
func TestUndoTakesBackLoadedTurns(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("print(v)"), openaitest.Text("done"))
	a := newAgent(t, testConfig(srv), echoKernel())
	a.Load(pastTurns, false)
	if q, ok := a.Undo(); !ok || q != "and without answer" || a.cells != 2 {
		t.Fatalf("Undo() = %q, %v with %d cells", q, ok, a.cells)
	}
	if q, ok := a.Undo(); !ok || q != "variance by region?" || a.cells != 0 || len(a.history) != 0 {
		t.Fatalf("Undo() = %q, %v with %d cells, %d history entries", q, ok, a.cells, len(a.history))
	}
}
