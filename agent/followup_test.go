package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// A follow-up continues the question: the model reads the note after its
// answer, cells go on numbering, and Undo takes the follow-up back with the
// question it belongs to.
func TestFollowUpContinuesTheQuestion(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("a = 1"), openaitest.Text("a is 2."),
		openaitest.ToolCalls("print(a)"), openaitest.Text("a is 1."),
		openaitest.Text("Next."),
	)
	cfg := testConfig(srv)
	cfg.Verify = true
	a := newAgent(t, cfg, echoKernel())
	if _, _, err := run(t, a, "Set a."); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	answer, err := a.FollowUp(context.Background(), "[quarry] 2 is in no cell's output.", rec.emit)
	if err != nil || answer != "a is 1." {
		t.Fatalf("FollowUp = %q, %v", answer, err)
	}
	if done := rec.of(EventCellDone); len(done) != 1 || done[0].Cell != 2 {
		t.Errorf("the follow-up's cell: %+v", done)
	}
	if turns := rec.of(EventTurnDone); len(turns) != 1 || turns[0].Text != "a is 1." {
		t.Errorf("the follow-up's turn_done: %+v", turns)
	}
	reqs := srv.ChatRequests()
	if got := reqs[2].LastUser(); got != "[quarry] 2 is in no cell's output." {
		t.Errorf("the model was not given the note: %q", got)
	}
	if !strings.Contains(reqs[0].System(), "checked against the outputs of your cells") {
		t.Errorf("the system prompt does not say numbers are checked")
	}
	if q, ok := a.Undo(); !ok || q != "Set a." {
		t.Fatalf("Undo() = %q, %v", q, ok)
	}
	if _, _, err := run(t, a, "Next?"); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range srv.ChatRequests()[4].Messages()[1:] {
		roles = append(roles, m.Role+":"+strings.TrimSpace(m.Content))
	}
	if want := []string{"user:Next?"}; !slices.Equal(roles, want) {
		t.Errorf("after Undo the history is %q, want %q", roles, want)
	}
}

// verify = off: the model is not told that numbers are checked.
func TestSystemPromptWithoutVerify(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("Hi."))
	a := newAgent(t, testConfig(srv), echoKernel())
	if _, _, err := run(t, a, "Hi"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(srv.ChatRequests()[0].System(), "checked against the outputs") {
		t.Error("the prompt says numbers are checked although verify is off")
	}
}
