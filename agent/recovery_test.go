package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

func TestRetryThenSuccess(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.RateLimited(80*time.Millisecond),
		openaitest.Error(503, "The server is overloaded"),
		openaitest.Drop(openaitest.Text("This text is void"), 3),
		openaitest.Truncate(openaitest.Text("Also void"), 2),
		openaitest.Reply{Status: 502, RawBody: "<html><body>502 Bad Gateway</body></html>"},
		openaitest.Text("Finally."),
	)
	cfg := testConfig(srv)
	cfg.MaxRetries = 6
	a := newAgent(t, cfg, echoKernel())
	ans, rec, err := run(t, a, "q")
	if err != nil || ans != "Finally." {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
	retries := rec.of(EventRetry)
	if len(retries) != 5 {
		t.Fatalf("%d retry events, want 5:\n%s", len(retries), rec.all())
	}
	wantWhy := []string{"rate limited (429)", "server error (503)", "the connection was reset", "the response stream was cut off", "server error (502)"}
	for i, r := range retries {
		if r.Text != wantWhy[i] || r.Attempt != i+1 {
			t.Errorf("retry %d = %q attempt %d, want %q attempt %d", i, r.Text, r.Attempt, wantWhy[i], i+1)
		}
	}
	if retries[0].Wait != 80*time.Millisecond {
		t.Errorf("first wait %v, want the server's 80ms", retries[0].Wait)
	}
	if rec.text() != "Finally." {
		t.Errorf("text after the last retry = %q", rec.text())
	}
	if n := len(srv.ChatRequests()); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}

func TestStreamErrorIsRetriedWhenServerSide(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.StreamError(openaitest.Text("void void void"), 2, "server_error", "The server had an error while processing your request."),
		openaitest.Text("ok"),
		openaitest.StreamError(openaitest.Text("nope"), 1, "invalid_request_error", "Invalid prompt: flagged"),
	)
	a := newAgent(t, testConfig(srv), echoKernel())
	if ans, rec, err := run(t, a, "q"); err != nil || ans != "ok" || len(rec.of(EventRetry)) != 1 {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
	_, rec, err := run(t, a, "q2")
	if err == nil || !strings.Contains(err.Error(), "failed mid-answer: Invalid prompt") || len(rec.of(EventRetry)) != 0 {
		t.Fatalf("err = %v\n%s", err, rec.all())
	}
}

func TestRetryGivesUp(t *testing.T) {
	srv := openaitest.New(t)
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Error(500, "boom") })
	cfg := testConfig(srv)
	cfg.MaxRetries = 2
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "q")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindServer || !strings.Contains(ae.Message, "gave up after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.of(EventRetry)) != 2 || len(srv.ChatRequests()) != 3 {
		t.Errorf("retries %d, requests %d", len(rec.of(EventRetry)), len(srv.ChatRequests()))
	}
	// A Retry-After longer than the time left is not waited for.
	srv2 := openaitest.New(t, openaitest.RateLimited(time.Hour))
	a2 := newAgent(t, testConfig(srv2), echoKernel())
	start := time.Now()
	if _, _, err := run(t, a2, "q"); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestRetryOnConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cfg := Config{Model: "m", BaseURL: "http://" + addr + "/v1", APIKey: "k", RetryBaseDelay: time.Millisecond, MaxRetries: 2}
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "q")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "is it running?") {
		t.Fatalf("err = %v", err)
	}
	if r := rec.of(EventRetry); len(r) != 2 || r[0].Text != "connection refused" {
		t.Errorf("retries: %s", rec.all())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"2": 2 * time.Second, "0.5": 500 * time.Millisecond,
		now.Add(3 * time.Second).Format(http.TimeFormat): 3 * time.Second,
	} {
		if got, ok := parseRetryAfter(in, now); !ok || got != want {
			t.Errorf("parseRetryAfter(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	err := &attemptError{err: errors.New("429"), header: http.Header{"Retry-After": {"3"}}}
	if got, ok := retryAfter(err); !ok || got != 3*time.Second {
		t.Errorf("retryAfter with only Retry-After = %v %v", got, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("accepted a bad Retry-After")
	}
}

func TestCancelMidCellKeepsConversationValid(t *testing.T) {
	srv := openaitest.New(t, openaitest.ToolCalls("slow()", "after()"), openaitest.Text("fresh start"))
	started := make(chan struct{})
	k := &stubKernel{run: func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
		onChunk(kernel.Chunk{Stream: kernel.Stdout, Text: "working…\n"})
		close(started)
		<-ctx.Done() // the cancelled ctx interrupts the cell
		return kernel.Result{Stdout: "working…\n", Error: &kernel.Error{Kind: kernel.ErrInterrupted, Message: "KeyboardInterrupt"}}, nil
	}}
	a := newAgent(t, testConfig(srv), k)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rec := &recorder{}
	_, err := a.Run(ctx, "long job", rec.emit)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(rec.of(EventError)) != 0 {
		t.Errorf("a user cancel emitted an error: %v", rec.of(EventError))
	}
	if w := rec.of(EventWarning); len(w) != 1 || w[0].Text != "cancelled" {
		t.Errorf("warnings = %v", w)
	}
	if len(k.Codes()) != 1 {
		t.Errorf("cells after the cancel ran: %v", k.Codes())
	}
	ans, _, err := run(t, a, "something else")
	if err != nil || ans != "fresh start" {
		t.Fatalf("next Run = %q, %v", ans, err)
	}
	next := srv.ChatRequests()[1]
	if missing := next.UnansweredCalls(); len(missing) != 0 {
		t.Fatalf("the next request leaves calls unanswered: %v", missing)
	}
	var tools []string
	for _, m := range next.Messages() {
		if m.Role == "tool" {
			tools = append(tools, m.ToolCallID+": "+m.Content)
		}
	}
	if len(tools) != 2 || !strings.Contains(tools[0], "call_0: ") || !strings.Contains(tools[0], "Cancelled by the user") ||
		!strings.Contains(tools[1], "call_1: Cancelled by the user: not run.") {
		t.Errorf("tool results = %q", tools)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := openaitest.New(t, openaitest.Hang(), openaitest.Text("back"))
	a := newAgent(t, testConfig(srv), echoKernel())
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	rec := &recorder{}
	start := time.Now()
	_, err := a.Run(ctx, "q", rec.emit)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if len(rec.of(EventError)) != 0 || len(rec.of(EventRetry)) != 0 {
		t.Errorf("events: %s", rec.all())
	}
	if ans, _, err := run(t, a, "again"); err != nil || ans != "back" {
		t.Fatalf("next Run = %q, %v", ans, err)
	}
}

func TestCancelWithStubbornKernel(t *testing.T) {
	old := interruptGrace
	interruptGrace = 50 * time.Millisecond
	defer func() { interruptGrace = old }()
	release := make(chan struct{})
	defer close(release)
	srv := openaitest.New(t, openaitest.ToolCalls("while True: pass"), openaitest.Text("ok"))
	k := &stubKernel{run: func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
		<-release // ignores ctx
		onChunk(kernel.Chunk{Text: "late"})
		return kernel.Result{}, nil
	}}
	a := newAgent(t, testConfig(srv), k)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	rec := &recorder{}
	_, err := a.Run(ctx, "q", rec.emit)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if e := rec.of(EventError); len(e) != 1 || !strings.Contains(e[0].Text, "ran out of time") {
		t.Errorf("events:\n%s", rec.all())
	}
	if d := rec.of(EventCellDone); len(d) != 1 || d[0].Result.Error == nil || d[0].Result.Error.Kind != kernel.ErrInterrupted {
		t.Errorf("cell done = %+v", d)
	}
}
