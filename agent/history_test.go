package agent

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

var pastTurns = []PastTurn{
	{Question: "variance by region?", Cells: []PastCell{
		{Num: 1, Code: "v = 1", Result: kernel.Result{Stdout: "ok\n"}},
		{Num: 2, Code: "v.x", Result: kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "AttributeError", Message: "no x"}}},
	}, Answer: "North grew **12.5%**."},
	{Question: "and without answer"},
}

// Past turns reach the model as the conversation it had, and the next
// cell is numbered after the last one.
func TestLoadPastTurnsNative(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("print(v)"), openaitest.Text("done"))
	a := newAgent(t, testConfig(srv), echoKernel())
	a.Load(pastTurns, false)
	_, rec, err := run(t, a, "follow-up")
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.of(EventCellDone); len(done) != 1 || done[0].Cell != 3 {
		t.Errorf("the first new cell is %+v, want cell 3", done)
	}
	msgs := srv.ChatRequests()[0].Messages()
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool tool assistant user user" {
		t.Fatalf("roles = %s", got)
	}
	call := msgs[2].ToolCalls
	if len(call) != 2 || !strings.Contains(call[0].Function.Arguments, `"v = 1"`) || call[1].ID == call[0].ID {
		t.Errorf("tool calls = %+v", call)
	}
	if msgs[3].ToolCallID != call[0].ID || !strings.Contains(msgs[3].Content, "ok") {
		t.Errorf("first tool message = %+v", msgs[3])
	}
	if !strings.Contains(msgs[4].Content, "AttributeError: no x") {
		t.Errorf("the failed cell's traceback is not in its tool message: %q", msgs[4].Content)
	}
	if msgs[5].Content != "North grew **12.5%**." || msgs[6].Content != "and without answer" || msgs[7].Content != "follow-up" {
		t.Errorf("messages = %+v", msgs[5:])
	}
	if srv.ChatRequests()[0].UnansweredCalls() != nil {
		t.Errorf("unanswered calls: %v", srv.ChatRequests()[0].UnansweredCalls())
	}
}

// A session that had fallen back to fenced blocks resumes in that mode.
func TestLoadPastTurnsMarkdown(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("done"))
	a := newAgent(t, testConfig(srv), echoKernel())
	a.Load(pastTurns[:1], true)
	if a.ToolMode() != modeMarkdown {
		t.Fatalf("mode = %s", a.ToolMode())
	}
	if _, _, err := run(t, a, "follow-up"); err != nil {
		t.Fatal(err)
	}
	req := srv.ChatRequests()[0]
	msgs := req.Messages()
	if req.HasTools() || len(msgs) != 6 {
		t.Fatalf("tools %v, %d messages", req.HasTools(), len(msgs))
	}
	if !strings.Contains(msgs[2].Content, "```python\nv = 1\n```") || !strings.Contains(msgs[3].Content, "Output of code block 2:") {
		t.Errorf("blocks %q, outputs %q", msgs[2].Content, msgs[3].Content)
	}
}

// A resumed folder whose last cells were taken back numbers on after them,
// as the sandbox names figures and tracebacks.
func TestNumberAfterTheFoldersCells(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("print(v)"), openaitest.Text("done"))
	a := newAgent(t, testConfig(srv), echoKernel())
	a.Load(pastTurns, false)
	a.NumberAfter(5)
	a.NumberAfter(1) // never back
	_, rec, err := run(t, a, "follow-up")
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.of(EventCellDone); len(done) != 1 || done[0].Cell != 6 {
		t.Errorf("the first new cell is %+v, want cell 6", done)
	}
}
