package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

func TestMultiStepLoop(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Call("Let me look.", openaitest.PythonCall("df = load()")),
		openaitest.ToolCalls("print(len(df))"),
	)
	// The final answer is built from what the sandbox returned.
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Text("The result: " + strings.TrimSpace(strings.TrimPrefix(r.LastToolResult(), "[stdout]\n")))
	})
	k := echoKernel()
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "How many rows?")
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rec.all())
	}
	if want := "The result: ran: print(len(df))"; ans != want {
		t.Errorf("answer = %q, want %q", ans, want)
	}
	if got := k.Codes(); !slices.Equal(got, []string{"df = load()", "print(len(df))"}) {
		t.Errorf("kernel ran %q", got)
	}
	want := []EventKind{EventText, EventUsage, EventCellStart, EventCellOutput, EventCellDone,
		EventUsage, EventCellStart, EventCellOutput, EventCellDone, EventUsage}
	got := slices.DeleteFunc(rec.kinds(), func(k EventKind) bool { return k == EventText })
	want = slices.DeleteFunc(want, func(k EventKind) bool { return k == EventText })
	want = append(want, EventTurnDone)
	if !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	if done := rec.of(EventCellDone); len(done) != 2 || done[1].Cell != 2 || done[1].Result == nil || done[1].Result.Stdout != "ran: print(len(df))\n" {
		t.Errorf("cell done events = %+v", done)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if !r.Chat.Stream || r.Chat.StreamOptions == nil || !r.Chat.StreamOptions.IncludeUsage {
			t.Errorf("request %d is not streaming with usage", r.N)
		}
		if len(r.Chat.Tools) != 1 || r.Chat.Tools[0].Function.Name != "python" {
			t.Errorf("request %d tools = %+v", r.N, r.Chat.Tools)
		}
		if m := r.Messages(); m[0].Role != "system" || m[1].Role != "user" || m[1].Content != "How many rows?" {
			t.Errorf("request %d starts %+v", r.N, m[:2])
		}
		if missing := r.UnansweredCalls(); len(missing) > 0 {
			t.Errorf("request %d leaves calls unanswered: %v", r.N, missing)
		}
	}
	last := reqs[2].Messages()
	if a := last[2]; a.Role != "assistant" || a.Content != "Let me look." || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_0" {
		t.Errorf("assistant message = %+v", a)
	}
	if rec.text() != "The result: ran: print(len(df))" {
		// text deltas of all responses of the turn, in order
		if !strings.HasPrefix(rec.text(), "Let me look.") {
			t.Errorf("text deltas = %q", rec.text())
		}
	}
	// The next turn continues the same conversation.
	srv.Push(openaitest.Text("Still here."))
	if ans, _, err := run(t, a, "And now?"); err != nil || ans != "Still here." {
		t.Fatalf("second turn: %q, %v", ans, err)
	}
	if n := len(srv.ChatRequests()[3].Messages()); n != 8 {
		t.Errorf("second turn sent %d messages, want 8 (system, q, a+call, tool, a+call, tool, answer, q2)", n)
	}
}

func TestSelfCorrectionAfterTraceback(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("df['Revenue'].sum()"))
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		if strings.Contains(r.LastToolResult(), "KeyError") {
			return openaitest.ToolCalls("df['revenue'].sum()")
		}
		return openaitest.Text("Total revenue is " + r.LastToolResult())
	})
	k := &stubKernel{run: func(ctx context.Context, code string, _ func(kernel.Chunk)) (kernel.Result, error) {
		if strings.Contains(code, "Revenue") {
			return kernel.Result{Error: &kernel.Error{Kind: kernel.ErrException, Type: "KeyError", Message: "'Revenue'",
				Traceback: "Traceback (most recent call last):\n  Cell In[1], line 1\n    df['Revenue'].sum()\nKeyError: 'Revenue'"}}, nil
		}
		return kernel.Result{Value: &kernel.Value{Repr: "1234.5"}}, nil
	}}
	a := newAgent(t, testConfig(srv), k)
	ans, rec, err := run(t, a, "total revenue?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(ans, "1234.5") {
		t.Errorf("answer %q lacks the corrected result", ans)
	}
	if len(rec.of(EventError)) > 0 {
		t.Errorf("a traceback must not be an error event: %v", rec.of(EventError))
	}
	tool := srv.ChatRequests()[1].LastToolResult()
	if !strings.Contains(tool, "Traceback") || !strings.Contains(tool, "KeyError: 'Revenue'") {
		t.Errorf("the model did not get the traceback: %q", tool)
	}
}

func TestParallelToolCallsAnsweredInOrder(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.ToolCalls("a = 1", "b = 2", "print(a + b)"),
		openaitest.Text("3"),
	)
	k := echoKernel()
	a := newAgent(t, testConfig(srv), k)
	if _, rec, err := run(t, a, "sum"); err != nil {
		t.Fatalf("Run: %v\n%s", err, rec.all())
	}
	if got := k.Codes(); !slices.Equal(got, []string{"a = 1", "b = 2", "print(a + b)"}) {
		t.Errorf("kernel ran %q", got)
	}
	msgs := srv.ChatRequests()[1].Messages()
	asst := msgs[2]
	if len(asst.ToolCalls) != 3 {
		t.Fatalf("assistant tool calls = %+v", asst.ToolCalls)
	}
	for i, m := range msgs[3:] {
		if m.Role != "tool" || m.ToolCallID != asst.ToolCalls[i].ID || m.ToolCallID != fmt.Sprintf("call_%d", i) {
			t.Errorf("message %d = %+v, want the tool result of %s", i, m, asst.ToolCalls[i].ID)
		}
		if want := "ran: " + k.Codes()[i]; !strings.Contains(m.Content, want) {
			t.Errorf("tool result %d = %q, want %q", i, m.Content, want)
		}
	}
}

func TestNoRetryOn401AndNoKeyInMessages(t *testing.T) {
	srv := openaitest.New(t)
	srv.RequireKey("sk-the-right-key")
	cfg := testConfig(srv)
	cfg.APIKey = "sk-wrong-secret-key-42"
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "hi")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindAuth || ae.Status != 401 {
		t.Fatalf("err = %#v, want an auth Error", err)
	}
	if want := "the API key was rejected (401): check OPENAI_API_KEY"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry)", n)
	}
	if len(rec.of(EventRetry)) != 0 || len(rec.of(EventError)) != 1 {
		t.Errorf("events: %s", rec.all())
	}
	for _, e := range rec.events {
		if strings.Contains(e.Text, "secret") {
			t.Errorf("the key leaked into %s: %q", e.Kind, e.Text)
		}
	}
}

func TestErrorMessagesInWords(t *testing.T) {
	cases := []struct {
		reply openaitest.Reply
		kind  ErrorKind
		want  string
	}{
		{openaitest.ErrorCode(404, "model_not_found", "The model `gpt-nope` does not exist or you do not have access to it."), KindModel, `the model "gpt-fake" was not found (404)`},
		{openaitest.ErrorCode(400, "context_length_exceeded", "This model's maximum context length is 128000 tokens."), KindContext, "too long for model"},
		{openaitest.Error(403, "Project does not have access to model"), KindAuth, "access denied (403)"},
		{openaitest.ErrorCode(429, "insufficient_quota", "You exceeded your current quota"), KindRateLimit, "no quota"},
		{openaitest.Error(400, "Invalid value for 'temperature' with sk-test-key-0123456789"), KindBadRequest, "rejected the request (400)"},
	}
	for _, c := range cases {
		srv := openaitest.New(t, c.reply)
		a := newAgent(t, testConfig(srv), echoKernel())
		_, rec, err := run(t, a, "hi")
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != c.kind || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%d %s: err = %v, want kind %s with %q", c.reply.Status, c.reply.ErrMessage, err, c.kind, c.want)
		}
		if strings.Contains(rec.all(), "sk-test-key") || strings.Contains(fmt.Sprint(err), "sk-test-key") {
			t.Errorf("the key leaked: %v", err)
		}
		if len(srv.ChatRequests()) != 1 {
			t.Errorf("%d: retried %d times", c.reply.Status, len(srv.ChatRequests())-1)
		}
	}
}

func TestStepLimit(t *testing.T) {
	srv := openaitest.New(t)
	srv.Handle(func(r openaitest.Request) openaitest.Reply {
		if r.Chat.ToolChoice == "none" {
			return openaitest.Text("Partial answer: I ran out of steps.")
		}
		return openaitest.ToolCalls("step()")
	})
	cfg := testConfig(srv)
	cfg.MaxSteps = 3
	k := echoKernel()
	a := newAgent(t, cfg, k)
	ans, rec, err := run(t, a, "loop forever")
	if err != nil || ans != "Partial answer: I ran out of steps." {
		t.Fatalf("Run = %q, %v", ans, err)
	}
	if len(k.Codes()) != 3 {
		t.Errorf("%d cells ran, want 3", len(k.Codes()))
	}
	if w := rec.of(EventWarning); len(w) != 1 || !strings.Contains(w[0].Text, "3 code runs") {
		t.Errorf("warnings = %v", w)
	}
}

func TestStepLimitCapsParallelCalls(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("1", "2", "3"))
	srv.Handle(func(r openaitest.Request) openaitest.Reply { return openaitest.Text("done") })
	cfg := testConfig(srv)
	cfg.MaxSteps = 2
	k := echoKernel()
	a := newAgent(t, cfg, k)
	if _, _, err := run(t, a, "q"); err != nil {
		t.Fatal(err)
	}
	if len(k.Codes()) != 2 {
		t.Errorf("ran %q, want 2 cells", k.Codes())
	}
	if got := srv.ChatRequests()[1].Messages()[5].Content; !strings.Contains(got, "Not run: the limit of 2") {
		t.Errorf("third call answered %q", got)
	}
}

func TestSandboxFailureEndsTurnCleanly(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("x = 1", "y = 2"), openaitest.Text("ok"))
	k := &stubKernel{run: func(context.Context, string, func(kernel.Chunk)) (kernel.Result, error) {
		return kernel.Result{}, errors.New("container quarry-abc is not running")
	}}
	a := newAgent(t, testConfig(srv), k)
	_, rec, err := run(t, a, "go")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindSandbox || !strings.Contains(ae.Message, "not running") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.of(EventError)) != 1 || len(k.Codes()) != 1 {
		t.Errorf("events %s; cells %v", rec.all(), k.Codes())
	}
	if d := rec.of(EventCellDone); len(d) != 1 || d[0].Result.Error == nil || d[0].Result.Error.Kind != kernel.ErrCrashed {
		t.Errorf("cell done = %+v", d)
	}
	if ans, _, err := run(t, a, "again"); err != nil || ans != "ok" {
		t.Fatalf("next turn: %q %v", ans, err)
	}
	if r := srv.ChatRequests()[1]; len(r.UnansweredCalls()) > 0 {
		t.Errorf("unanswered calls after a sandbox failure: %v", r.UnansweredCalls())
	}
}

func TestUsageAndCost(t *testing.T) {
	first := openaitest.ToolCalls("1")
	first.PromptTokens, first.CompletionTokens = 1000, 100
	second := openaitest.Text("done")
	second.PromptTokens, second.CompletionTokens = 2000, 50
	srv := openaitest.New(t, first, second)
	cfg := testConfig(srv)
	cfg.Prices = map[string]Price{"gpt-fake": {Input: 2, Output: 10}}
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "q")
	if err != nil {
		t.Fatal(err)
	}
	us := rec.of(EventUsage)
	if len(us) != 2 {
		t.Fatalf("%d usage events", len(us))
	}
	u := us[1].Usage
	if u.Turn.Prompt != 3000 || u.Turn.Completion != 150 || u.Total != u.Turn {
		t.Errorf("usage = %+v", u)
	}
	if want := (3000*2 + 150*10) / 1e6; fmt.Sprintf("%.6f", u.Turn.CostUSD) != fmt.Sprintf("%.6f", want) {
		t.Errorf("cost = %v, want %v", u.Turn.CostUSD, want)
	}
}

func TestLengthFinishContinues(t *testing.T) {
	cut := openaitest.Text("The answer is")
	cut.FinishReason = "length"
	srv := openaitest.New(t, cut, openaitest.Text(" 42."))
	a := newAgent(t, testConfig(srv), echoKernel())
	ans, _, err := run(t, a, "q")
	if err != nil || ans != "The answer is 42." {
		t.Fatalf("Run = %q, %v", ans, err)
	}
	if !strings.Contains(srv.ChatRequests()[1].LastUser(), "cut off") {
		t.Errorf("no continuation note: %q", srv.ChatRequests()[1].LastUser())
	}
}

func TestAzureRequestShape(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("hi"))
	cfg := testConfig(srv)
	cfg.BaseURL = strings.TrimSuffix(srv.URL, "/v1")
	cfg.AzureAPIVersion = "2024-10-21"
	cfg.Model = "my-gpt-4.1"
	a := newAgent(t, cfg, echoKernel())
	if _, _, err := run(t, a, "q"); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	if r.Path != "/openai/deployments/my-gpt-4.1/chat/completions" || r.Query != "api-version=2024-10-21" || r.Header.Get("api-key") != cfg.APIKey {
		t.Errorf("azure request %s?%s api-key set %v", r.Path, r.Query, r.Header.Get("api-key") != "")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no model"},
		{Config{Model: "m", ToolMode: "magic"}, `tool_mode "magic"`},
		{Config{Model: "m", MaxSteps: -1}, "max_steps"},
	} {
		if _, err := New(c.cfg, echoKernel()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := New(Config{Model: "m"}, nil); err == nil {
		t.Error("New without a kernel succeeded")
	}
}

// A key written into the base URL as its user name (http://KEY@host/v1)
// must not come back in the connection-refused message: net/http hides
// only a password there.
func TestKeyInBaseURLNotInErrors(t *testing.T) {
	const key = "sk-proj-BASEURLKEY0123456789"
	cfg := Config{Model: "gpt-fake", BaseURL: "http://" + key + "@127.0.0.1:1/v1", MaxRetries: -1}
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "hi")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("err = %v, want one naming the server", err)
	}
	if strings.Contains(rec.all()+err.Error()+fmt.Sprintf("%+v %v", cfg, a), "BASEURLKEY") {
		t.Errorf("the key leaked:\nerr %v\nevents %s", err, rec.all())
	}
}
