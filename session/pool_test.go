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

// A pool fills to its size; a sandbox taken becomes the session's (its id
// and folder) and the pool starts another, under a new id; Close removes
// what no session took, and its folder, but not the session's.
func TestPoolHandsEachSandboxToOneSession(t *testing.T) {
	e := sandboxtest.Engine(t)
	label := fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid())
	cfg := config.Config{Timeout: time.Minute, OutputDir: t.TempDir()}
	p := NewPool(e, cfg, 1, func(line string) { t.Log(line) })
	defer p.Close()
	waitReady(t, p, 1)
	pd := p.Take()
	if pd == nil {
		t.Fatal("a ready pool gave nothing")
	}
	s := New(Options{Config: cfg, Engine: e, Index: t.TempDir(), Tool: "test", Pooled: pd})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if s.ID() != pd.id || s.OutputDir() != pd.dir {
		t.Errorf("session %s in %s, want the pooled sandbox's %s in %s", s.ID(), s.OutputDir(), pd.id, pd.dir)
	}
	c, err := s.RunCell(ctx, "test", "open('/output/mine.txt', 'w').write('x')\nprint('ran')", nil)
	if err != nil || c.Status != CellOK || !strings.Contains(c.Result.Stdout, "ran") {
		t.Fatalf("cell: %v %+v", err, c)
	}
	if _, err := os.Stat(pd.dir + "/mine.txt"); err != nil {
		t.Errorf("the cell's file was not harvested into the session's folder: %v", err)
	}
	waitReady(t, p, 1) // refilled
	p.mu.Lock()
	next := p.ready[0].id
	p.mu.Unlock()
	if next == pd.id {
		t.Fatal("the pool handed out the same sandbox twice")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+next)
	if _, err := os.Stat(cfg.OutputDir + "/" + next); !os.IsNotExist(err) {
		t.Errorf("the unused sandbox's folder is left: %v", err)
	}
	if c, err := s.RunCell(ctx, "test", "print('still')", nil); err != nil || c.Status != CellOK {
		t.Fatalf("the session lost its sandbox when the pool closed: %v %+v", err, c)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, label)
}

// A session closed before it started still removes the sandbox it was given.
func TestPooledSandboxRemovedWithoutStart(t *testing.T) {
	e := sandboxtest.Engine(t)
	cfg := config.Config{Timeout: time.Minute, OutputDir: t.TempDir()}
	p := NewPool(e, cfg, 1, nil)
	defer p.Close()
	waitReady(t, p, 1)
	p.mu.Lock()
	p.closed = true // no refill: only the one taken counts
	p.mu.Unlock()
	pd := p.Take()
	s := New(Options{Config: cfg, Engine: e, Index: t.TempDir(), Tool: "test", Pooled: pd})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+pd.id)
}

func waitReady(t *testing.T, p *Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); p.Ready() < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pool has %d sandboxes ready after a minute, want %d", p.Ready(), n)
		}
	}
}
