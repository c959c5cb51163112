package agent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

func TestStreamStallIsRetried(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Stall(openaitest.Text("This text is void"), 2),
		openaitest.Hang(), // silent right after the first chunk and its ping
		openaitest.Text("Finally."),
	)
	cfg := testConfig(srv)
	cfg.StreamIdleTimeout = 200 * time.Millisecond
	a := newAgent(t, cfg, echoKernel())
	ans, rec, err := run(t, a, "q")
	if err != nil || ans != "Finally." {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
	retries := rec.of(EventRetry)
	if len(retries) != 2 {
		t.Fatalf("%d retry events, want 2:\n%s", len(retries), rec.all())
	}
	for i, r := range retries {
		if r.Text != "the model stopped sending for 200ms" || r.Attempt != i+1 {
			t.Errorf("retry %d = %q attempt %d", i, r.Text, r.Attempt)
		}
	}
	if rec.text() != "Finally." {
		t.Errorf("text after the last retry = %q", rec.text())
	}
}

func TestStreamStallGivesUpWithinRetryLimits(t *testing.T) {
	stall := openaitest.Stall(openaitest.Text("never finished"), 3)
	srv := openaitest.New(t, stall, stall, stall, openaitest.Text("not reached"))
	cfg := testConfig(srv)
	cfg.StreamIdleTimeout = 200 * time.Millisecond
	cfg.MaxRetries = 2
	a := newAgent(t, cfg, echoKernel())
	_, rec, err := run(t, a, "q")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindServer || !strings.Contains(e.Message, "silent") ||
		!strings.Contains(e.Message, "200ms") || !strings.Contains(e.Message, "gave up after 3 attempts") {
		t.Fatalf("err = %v\n%s", err, rec.all())
	}
	if n := len(rec.of(EventRetry)); n != 2 {
		t.Errorf("%d retry events, want 2:\n%s", n, rec.all())
	}
}

func TestSlowButSteadyStreamIsNotCut(t *testing.T) {
	// Each chunk comes within the idle timeout, the whole answer does not.
	r := openaitest.Text("slow and steady wins")
	r.ChunkSize, r.Delay = 4, 60*time.Millisecond
	srv := openaitest.New(t, r)
	cfg := testConfig(srv)
	cfg.StreamIdleTimeout = 200 * time.Millisecond
	a := newAgent(t, cfg, echoKernel())
	ans, rec, err := run(t, a, "q")
	if err != nil || ans != "slow and steady wins" || len(rec.of(EventRetry)) != 0 {
		t.Fatalf("Run = %q, %v\n%s", ans, err, rec.all())
	}
}
