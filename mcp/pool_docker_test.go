package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Two sessions in turn, each on a sandbox from the warm pool: what the
// first wrote (a variable, a file in /output and one in /tmp, an attached
// file in /data) is nowhere in the second; when the server stops, nothing
// is left, the pool's unused sandbox included.
func TestWarmPoolSessionsShareNothing(t *testing.T) {
	srv, logs := testServer(t, Options{Warm: 1}, true)
	srv.Prepare(context.Background())
	waitPool(t, srv)
	first := connectClient(t, srv, "first", nil)
	root := srv.Roots()[0]
	if err := os.WriteFile(root+"/q1.csv", []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, arg, val string }{
		{"attach_file", "path", "q1.csv"},
		{"run_python", "code", "secret = 'first session'\nopen('/output/left.txt', 'w').write('x')\nopen('/tmp/left.txt', 'w').write('x')"},
	} {
		if res := callTool(t, first, c.tool, map[string]any{c.arg: c.val}); res.IsError {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
	}
	first.Close()
	waitPool(t, srv) // refilled while the first session ran
	second := connectClient(t, srv, "second", nil)
	res := callTool(t, second, "run_python", map[string]any{"code": "import os\n" +
		"print('found:', [n for n in ('secret',) if n in globals()], " +
		"[p for p in ('/output/left.txt', '/tmp/left.txt', '/data/q1.csv') if os.path.exists(p)])"})
	if got := text(res); res.IsError || !strings.Contains(got, "found: [] []") {
		t.Errorf("the second session sees the first's state:\n%s", got)
	}
	ids := logs.sessionIDs()
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("sessions started: %v, want two", ids)
	}
	pooled := 0
	logs.mu.Lock()
	lines := append([]string(nil), logs.lines...)
	logs.mu.Unlock()
	for _, l := range lines {
		if strings.Contains(l, "its sandbox from the warm pool") {
			pooled++
		}
	}
	if pooled != 2 {
		t.Fatalf("%d of the 2 sessions had a sandbox from the pool: the test proves nothing\n%s", pooled, strings.Join(lines, "\n"))
	}
	second.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, fmt.Sprintf("%s=%d", engine.LabelPID, os.Getpid()))
}

// waitPool waits until the server's pool has a sandbox ready.
func waitPool(t *testing.T, srv *Server) {
	t.Helper()
	srv.mu.Lock()
	p := srv.pool
	srv.mu.Unlock()
	if p == nil {
		t.Fatal("Prepare made no pool")
	}
	for deadline := time.Now().Add(time.Minute); p.Ready() < 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no sandbox ready in the pool after a minute")
		}
	}
}
