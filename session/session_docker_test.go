package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func testConfig(srvURL, out string) config.Config {
	return config.Config{
		Model: "gpt-fake", BaseURL: srvURL, APIKey: "sk-session-test-key", ToolMode: "native",
		Timeout: 30 * time.Second, MaxSteps: 5, OutputDir: out,
	}
}

// One session end to end against the real sandbox: background start,
// attach, a turn with a cell, a reset that keeps the file, close.
func TestSessionLifecycle(t *testing.T) {
	e := sandboxtest.Engine(t)
	srv := openaitest.New(t,
		openaitest.ToolCalls("import pandas as pd\nx = 41\nprint('ROWS', len(pd.read_csv('/data/q1.csv')))"),
		openaitest.Text("three rows"),
		openaitest.ToolCalls("print('x' in dir(), 'x' in globals())\nprint(open('/data/q1.csv').readline().strip())"),
		openaitest.Text("after reset"),
	)
	out := t.TempDir()
	data := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(data, []byte("department,budget,actual\nSales,1,2\nHR,3,4\nIT,5,6\n"), 0o644)

	states := &stateLog{}
	s := New(Options{Config: testConfig(srv.URL, out), Engine: e, Events: states.event})
	defer s.Close()
	startErr := make(chan error, 1)
	go func() { startErr <- s.Start(context.Background()) }()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := s.Attach(ctx, data) // waits for Start
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	if err := <-startErr; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if p.Path != "/data/q1.csv" || len(s.Files()) != 1 {
		t.Fatalf("profile %+v, files %d", p, len(s.Files()))
	}
	if st := states.last(); st != StateReady {
		t.Fatalf("state = %s, want ready", st)
	}
	var events []agent.Event
	answer, err := s.Ask(ctx, "how many rows?", func(e agent.Event) { events = append(events, e) })
	if err != nil || answer != "three rows" {
		t.Fatalf("Ask = %q, %v", answer, err)
	}
	var stdout string
	for _, e := range events {
		if e.Kind == agent.EventCellDone && e.Result != nil {
			stdout = e.Result.Stdout
		}
	}
	if !strings.Contains(stdout, "ROWS 3") {
		t.Fatalf("cell stdout = %q", stdout)
	}

	if err := s.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if _, err := s.Ask(ctx, "again", nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	last := reqs[len(reqs)-1].LastToolResult()
	if !strings.Contains(last, "False False") || !strings.Contains(last, "department,budget,actual") {
		t.Errorf("after Reset: want a fresh kernel with the file kept, tool result %q", last)
	}
	if n := len(reqs[len(reqs)-2].Messages()); n > 4 {
		t.Errorf("after Reset the conversation was not forgotten: %d messages", n)
	}

	tr, err := os.ReadFile(filepath.Join(s.OutputDir(), RecordName))
	if err != nil || !strings.Contains(string(tr), `"kind":"question"`) || strings.Contains(string(tr), "sk-session-test-key") {
		t.Errorf("transcript: %v\n%s", err, tr)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if st := states.last(); st != StateClosed {
		t.Errorf("state = %s", st)
	}
	if _, err := s.Ask(ctx, "after close", nil); err == nil {
		t.Error("Ask after Close succeeded")
	}
	requireGone(t, s.ID())
}

// Close while Start is still running must not leave a container behind.
func TestCloseDuringStart(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := New(Options{Config: testConfig("http://127.0.0.1:1/v1", t.TempDir()), Engine: e})
	done := make(chan error, 1)
	go func() { done <- s.Start(context.Background()) }()
	time.Sleep(300 * time.Millisecond) // inside container create or kernel start
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	<-done
	requireGone(t, s.ID())
}

// Ask waits for Start (even one not launched yet) and gives up with the
// caller's context.
func TestAskWaitsWithContext(t *testing.T) {
	s := New(Options{Config: config.Config{Model: "m", OutputDir: t.TempDir()}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Ask(ctx, "x", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ask before Start: %v, want the context's deadline", err)
	}
	s.Close()
	if _, err := s.Ask(context.Background(), "x", nil); err == nil {
		t.Fatal("Ask after Close succeeded")
	}
}

// stateLog keeps the sandbox states a session reported through its events.
type stateLog struct {
	mu     sync.Mutex
	states []State
}

func (l *stateLog) event(e agent.Event) {
	if e.Kind == agent.EventSandbox {
		l.mu.Lock()
		l.states = append(l.states, State(e.Text))
		l.mu.Unlock()
	}
}

func (l *stateLog) last() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.states) == 0 {
		return StateNew
	}
	return l.states[len(l.states)-1]
}
