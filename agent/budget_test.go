package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

func TestBudgetTrimmingKeepsRequestsUnderLimit(t *testing.T) {
	const cells = 6
	replies := []openaitest.Reply{}
	for i := range cells {
		replies = append(replies, openaitest.ToolCalls(strings.Repeat("#", 10)+" cell "+string(rune('A'+i))))
	}
	replies = append(replies, openaitest.Text("done"))
	srv := openaitest.New(t, replies...)
	big := strings.Repeat("0123456789 ", 700) // 7,700 chars, about 1,900 tokens per cell
	k := &stubKernel{run: func(_ context.Context, code string, _ func(kernel.Chunk)) (kernel.Result, error) {
		return kernel.Result{Stdout: code + "\n" + big}, nil
	}}
	cfg := testConfig(srv)
	// Room for the system prompt and the tools, the question and about one
	// and a half cells' outputs: the older ones must be trimmed.
	system := estimateTokens([]message{{role: "system", content: newAgent(t, cfg, k).systemPrompt()}}, true)
	budget := system + 3000
	cfg.ContextBudget = budget
	a := newAgent(t, cfg, k)
	ans, rec, err := run(t, a, "crunch")
	if err != nil || ans != "done" {
		t.Fatalf("Run = %q, %v", ans, err)
	}
	reqs := srv.ChatRequests()
	prompt := reqs[0].System()
	for _, r := range reqs {
		if est := estimateTokens(sentMessages(r), r.HasTools()); est > budget {
			t.Errorf("request %d: about %d tokens, over the budget of %d", r.N, est, budget)
		}
		if r.System() != prompt || r.Messages()[1].Content != "crunch" {
			t.Errorf("request %d changed the system prompt or the question", r.N)
		}
	}
	last := reqs[len(reqs)-1].Messages()
	var trimmed, intact int
	for _, m := range last {
		if m.Role != "tool" {
			continue
		}
		if strings.HasPrefix(m.Content, "[output trimmed") {
			trimmed++
		} else if strings.Contains(m.Content, big[:100]) {
			intact++
		}
	}
	if trimmed == 0 || intact < 1 || !strings.Contains(last[len(last)-1].Content, "cell F") {
		t.Errorf("trimmed %d, intact %d, last %q", trimmed, intact, clip(last[len(last)-1].Content, 80))
	}
	// Events still carry the whole results.
	for _, e := range rec.of(EventCellDone) {
		if !strings.HasSuffix(e.Result.Stdout, big) {
			t.Errorf("cell %d event lost output", e.Cell)
		}
	}
	if w := rec.of(EventWarning); len(w) != 1 {
		t.Errorf("warnings = %v", w)
	}
}

func TestBudgetDropsOldTurns(t *testing.T) {
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Text(strings.Repeat("long answer ", 300))
	})
	cfg := testConfig(srv)
	// The system prompt and tools, the current question and about one old
	// turn: the older turns must go.
	budget := estimateTokens([]message{{role: "system", content: newAgent(t, cfg, echoKernel()).systemPrompt()}}, true) + 1200
	cfg.ContextBudget = budget
	a := newAgent(t, cfg, echoKernel())
	for i := range 8 {
		if _, _, err := run(t, a, "question "+strings.Repeat("?", 500)+string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
	}
	r := srv.ChatRequests()[7]
	if est := estimateTokens(sentMessages(r), true); est > budget {
		t.Errorf("about %d tokens, over the budget of %d", est, budget)
	}
	if n := len(r.Messages()); n >= 2+2*7 {
		t.Errorf("%d messages: no old turn was dropped", n)
	}
	if !strings.HasSuffix(r.LastUser(), "h") {
		t.Errorf("the current question was lost: %q", clip(r.LastUser(), 40))
	}
	if r.Messages()[0].Role != "system" || r.Messages()[1].Role != "user" {
		t.Errorf("history does not start with a question after dropping turns")
	}
}

// sentMessages is a request's conversation as quarry's messages, to
// estimate what the server received.
func sentMessages(r openaitest.Request) []message {
	var out []message
	for _, m := range r.Messages() {
		msg := message{role: role(m.Role), content: m.Content, callID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.calls = append(msg.calls, toolCall{id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments})
		}
		out = append(out, msg)
	}
	return out
}
