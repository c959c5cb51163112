package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// TestRemoteEngineOverTCP reaches the same engine through a loopback TCP
// port (a proxy to the local socket opened by the test), so nothing can be
// bind-mounted: files must go in and come out over the API.
func TestRemoteEngineOverTCP(t *testing.T) {
	sandboxtest.Engine(t) // skip/fail rules and the image check
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	remoteRoundTrip(t, e)
}

// remoteRoundTrip runs a session on an engine reached over the network:
// a file goes in and a file and a figure come out, all over the API.
func remoteRoundTrip(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if !e.Remote() {
		t.Fatalf("engine at %s not seen as remote", e.Host())
	}
	s := sandboxtest.Session(t, e, sandbox.Options{})
	in := filepath.Join(t.TempDir(), "in put.csv")
	os.WriteFile(in, []byte("a;b\n1,5;2\n"), 0o644)
	prof, err := s.AddFile(ctx, in)
	if err != nil || prof.Rows != 1 || prof.Delimiter != ";" {
		t.Fatalf("profile %+v, %v", prof, err)
	}
	res := cell(t, s, "import pandas as pd\npd.read_csv('/data/in put.csv', sep=';', decimal=',').to_csv('out.csv', index=False)\nimport matplotlib.pyplot as plt\nplt.bar([1], [2])")
	cellOK(t, res)
	if len(res.Files) != 1 || len(res.Figures) != 1 {
		t.Fatalf("files %+v figures %+v notes %v", res.Files, res.Figures, res.Notes)
	}
	if b, _ := os.ReadFile(res.Files[0].Path); string(b) != "a,b\n1.5,2\n" {
		t.Fatalf("harvested %q", b)
	}
}

// TestEngineGoneMidCell cuts the connection to the engine while a cell
// runs: Exec returns an error that says so (engine.ErrUnreachable), nothing hangs or
// panics, and Close is safe.
func TestEngineGoneMidCell(t *testing.T) {
	local := sandboxtest.Engine(t)
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	defer sandbox.RemoveSession(context.Background(), local, s.ID()) // the engine is back for the test's own engine
	time.AfterFunc(time.Second, p.Cut)
	res, err := s.Exec(ctx, "import time\ntime.sleep(30)", nil)
	if !errors.Is(err, engine.ErrUnreachable) || !strings.Contains(err.Error(), "went away") {
		t.Fatalf("exec: %v (result %+v)", err, res)
	}
	if err := s.Close(); err == nil {
		t.Log("close reported no error although the engine is unreachable")
	}
	if err := s.Close(); err != nil && !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("second close: %v", err)
	}
}
