package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/kernel"
)

// stubKernel is a TEST DOUBLE of the Kernel interface, not the sandbox: the
// agent's contract is with the interface, and the real sandbox is exercised
// end to end by the headless tests. run decides each cell's result; the
// codes it received are recorded.
type stubKernel struct {
	mu    sync.Mutex
	codes []string
	run   func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error)
}

func (k *stubKernel) Exec(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
	k.mu.Lock()
	k.codes = append(k.codes, code)
	k.mu.Unlock()
	if k.run == nil {
		onChunk(kernel.Chunk{Stream: kernel.Stdout, Text: "ran: " + code + "\n"})
		return kernel.Result{Stdout: "ran: " + code + "\n"}, nil
	}
	return k.run(ctx, code, onChunk)
}

func (k *stubKernel) Codes() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.codes...)
}

// echoKernel prints its code back, from another goroutine as a real
// kernel's reader would.
func echoKernel() *stubKernel {
	return &stubKernel{run: func(ctx context.Context, code string, onChunk func(kernel.Chunk)) (kernel.Result, error) {
		done := make(chan struct{})
		go func() { onChunk(kernel.Chunk{Stream: kernel.Stdout, Text: "ran: " + code + "\n"}); close(done) }()
		<-done
		return kernel.Result{Stdout: "ran: " + code + "\n"}, nil
	}}
}

type recorder struct{ events []Event }

func (r *recorder) emit(e Event) { r.events = append(r.events, e) }

func (r *recorder) kinds() []EventKind {
	var out []EventKind
	for _, e := range r.events {
		out = append(out, e.Kind)
	}
	return out
}

func (r *recorder) of(k EventKind) []Event {
	var out []Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// text joins the text deltas after the last retry notice (earlier ones are
// void by the event contract).
func (r *recorder) text() string {
	var b strings.Builder
	for _, e := range r.events {
		switch e.Kind {
		case EventText:
			b.WriteString(e.Text)
		case EventRetry:
			b.Reset()
		}
	}
	return b.String()
}

func (r *recorder) all() string {
	var b strings.Builder
	for _, e := range r.events {
		b.WriteString(string(e.Kind) + ": " + e.Text + "\n")
	}
	return b.String()
}

func testConfig(srv *openaitest.Server) Config {
	return Config{
		Model:          "gpt-fake",
		BaseURL:        srv.URL,
		APIKey:         "sk-test-key-0123456789",
		RetryBaseDelay: 5 * time.Millisecond,
		MaxRetryTime:   10 * time.Second,
	}
}

func newAgent(t *testing.T, cfg Config, k Kernel) *Agent {
	t.Helper()
	a, err := New(cfg, k)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

func run(t *testing.T, a *Agent, prompt string) (string, *recorder, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &recorder{}
	ans, err := a.Run(ctx, prompt, rec.emit)
	return ans, rec, err
}
