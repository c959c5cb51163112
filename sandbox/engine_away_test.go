package sandbox_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A session closed while the engine is away (stopped, restarting, its
// connection cut) cannot remove its container and volumes; the process
// goes on, so the sweep will not (its pid lives). They go at the process's
// next create, as soon as the engine answers again.
func TestCloseWhileEngineAwayRemovedWhenBack(t *testing.T) {
	local := sandboxtest.Engine(t)
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cut, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.RemoveSession(context.Background(), local, cut.ID()) })

	p.Cut()
	if err := cut.Close(); err == nil {
		t.Fatal("close with the engine away: no error")
	}
	if c, v, _ := sandbox.SessionObjects(ctx, local, cut.ID()); c != 1 || v != 2 {
		t.Fatalf("with the engine away the session kept %d containers, %d volumes; want 1 and 2", c, v)
	}
	p.Restore()
	next, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if c, v, _ := sandbox.SessionObjects(ctx, local, cut.ID()); c != 0 || v != 0 {
		t.Fatalf("the engine back, the cut session still has %d containers, %d volumes", c, v)
	}
}
