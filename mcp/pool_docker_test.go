package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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

// At --max-sessions over HTTP, the next session's first call is refused at
// once, naming the limit, and takes nothing from the warm pool; once a
// place is free, that session starts on the pool's sandbox.
func TestMaxSessionsRefusedAtOnceOverHTTP(t *testing.T) {
	srv, _ := testServer(t, Options{MaxSessions: 1, Warm: 1}, true)
	srv.Prepare(context.Background())
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
	t.Cleanup(ts.Close) // after the clients' own cleanups: their streams end first
	connect := func(name string) *sdk.ClientSession {
		tr := &sdk.StreamableClientTransport{Endpoint: ts.URL + Path, HTTPClient: &http.Client{Transport: bearer{"tok"}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first, second := connect("first"), connect("second")
	if res := callTool(t, first, "run_python", map[string]any{"code": "1"}); res.IsError {
		t.Fatalf("first: %s", text(res))
	}
	waitPool(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang fails here
	defer cancel()
	res, err := second.CallTool(ctx, &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": "1"}})
	if err != nil {
		t.Fatalf("second, past the limit: no answer: %v", err)
	}
	if got := text(res); !res.IsError || !strings.Contains(got, "--max-sessions 1") || !strings.Contains(got, "end another client's session") {
		t.Fatalf("second, past the limit: isError %v, %s", res.IsError, got)
	}
	srv.mu.Lock()
	ready := srv.pool.Ready()
	srv.mu.Unlock()
	if ready != 1 {
		t.Errorf("the refused session took the pool's sandbox (%d ready)", ready)
	}
	first.Close()
	for deadline := time.Now().Add(time.Minute); openSessions(srv) > 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if res := callTool(t, second, "run_python", map[string]any{"code": "print('now', 2)"}); res.IsError || !strings.Contains(text(res), "now 2") {
		t.Fatalf("second, after the first left: %s", text(res))
	}
}
