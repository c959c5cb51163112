package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// holderRun is a holder served in the test process, on a socket folder
// of the test's own.
type holderRun struct {
	spec WarmSpec
	done chan error
	stop context.CancelFunc
}

func startHolder(t *testing.T, e *engine.Engine, size int, idle time.Duration) *holderRun {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	h := &holderRun{spec: SpecOf(config.Config{}), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	ready := make(chan struct{})
	go func() {
		h.done <- ServeWarm(ctx, e, h.spec, size, idle, func(l string) { t.Log(l) }, func(string) { close(ready) })
	}()
	select {
	case <-ready:
	case err := <-h.done:
		t.Fatalf("holder: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		<-h.done
	})
	return h
}

// take waits for the holder to have a sandbox ready and takes it.
func (h *holderRun) take(t *testing.T) *Warm {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		w, err := TakeWarm(context.Background(), h.spec)
		if err != nil {
			t.Fatal(err)
		}
		if w != nil {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatal("the holder had no sandbox ready after two minutes")
		}
	}
}

func warmSession(t *testing.T, e *engine.Engine, w *Warm) *Session {
	t.Helper()
	cfg := config.Config{Timeout: time.Minute, OutputDir: t.TempDir()}
	s := New(Options{Config: cfg, Engine: e, Index: t.TempDir(), Tool: "test", Pooled: w.Pooled()})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		s.Close()
		t.Fatal(err)
	}
	return s
}

func runOK(t *testing.T, s *Session, code string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := s.RunCell(ctx, "test", code, nil)
	if err != nil || c.Status != CellOK {
		t.Fatalf("cell %q: %v %+v", code, err, c)
	}
	return c.Result.Stdout
}

// Two runs in a row each take a sandbox the holder started: the second's
// is another container, and nothing the first left (a variable, files in
// /tmp, /output and /data) is in it. A run's sandbox goes with the run.
func TestWarmHandsEachRunItsOwnSandbox(t *testing.T) {
	e := sandboxtest.Engine(t)
	h := startHolder(t, e, 1, time.Minute)

	w1 := h.take(t)
	s1 := warmSession(t, e, w1)
	if s1.ID() != w1.h.ID {
		t.Fatalf("session %s, want the warm sandbox's %s", s1.ID(), w1.h.ID)
	}
	runOK(t, s1, "secret_var = 42\nopen('/tmp/left.txt','w').write('x')\nopen('/output/left.txt','w').write('x')\nprint('one')")
	if _, err := os.Stat(s1.OutputDir() + "/left.txt"); err != nil {
		t.Errorf("the first run's file was not harvested into its folder: %v", err)
	}
	first := s1.ID()
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+first)

	w2 := h.take(t)
	s2 := warmSession(t, e, w2)
	defer s2.Close()
	if s2.ID() == first {
		t.Fatal("the holder handed out the same sandbox twice")
	}
	got := runOK(t, s2, "import os\nprint('secret_var' in globals(), os.path.exists('/tmp/left.txt'), sorted(os.listdir('/output')), sorted(os.listdir('/data')))")
	if strings.TrimSpace(got) != "False False [] []" {
		t.Errorf("the second run sees the first's state: %q", got)
	}
}

// A run that goes without closing its sandbox (killed: its connection
// closes) leaves it to the holder, which removes it.
func TestWarmSandboxOfAGoneRunIsRemoved(t *testing.T) {
	e := sandboxtest.Engine(t)
	h := startHolder(t, e, 1, time.Minute)
	w := h.take(t)
	id := w.h.ID
	w.conn.Close() // the run's process died
	label := "io.quarry.session=" + id
	for deadline := time.Now().Add(30 * time.Second); sandboxtest.Left(t, label) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox of a run that went is still there after 30 s")
		}
	}
}

// A holder idle past its time stops on its own and removes what it held.
func TestWarmHolderStopsWhenIdle(t *testing.T) {
	e := sandboxtest.Engine(t)
	h := startHolder(t, e, 1, 3*time.Second)
	w := h.take(t) // held: the holder waits for the run
	s := warmSession(t, e, w)
	time.Sleep(4 * time.Second)
	select {
	case err := <-h.done:
		t.Fatalf("the holder stopped while a run held a sandbox: %v", err)
	default:
	}
	runOK(t, s, "print(1)")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the idle holder did not stop")
	}
	sandboxtest.RequireNothingLeft(t, fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid()))
	if ok, _ := StopWarm(context.Background(), h.spec); ok {
		t.Error("the stopped holder still answers")
	}
}

// A run whose configuration is another one's gets no sandbox.
func TestWarmRefusesAnotherSpec(t *testing.T) {
	e := sandboxtest.Engine(t)
	h := startHolder(t, e, 1, time.Minute)
	h.take(t).Close()
	other := h.spec
	other.Memory = 1 << 30
	if w, err := TakeWarm(context.Background(), other); w != nil || err != ErrNoHolder {
		t.Fatalf("a run with another memory limit got %v, %v; want no holder", w, err)
	}
}
