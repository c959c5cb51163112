package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// killSandboxes kills the sessions' containers from outside.
func killSandboxes(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		sandboxtest.KillLabelled(t, "io.quarry.session="+id)
	}
}

// connectN connects n clients one after the other, each setting a
// variable of its own in its sandbox, and returns them with their
// sessions' ids in the same order.
func connectN(t *testing.T, srv *Server, logs *logLines, n int) ([]*sdk.ClientSession, []string) {
	t.Helper()
	var css []*sdk.ClientSession
	for i := range n {
		cs := connectClient(t, srv, fmt.Sprintf("client-%d", i), nil)
		if res := callTool(t, cs, "run_python", map[string]any{"code": fmt.Sprintf("mine = %d", 100+i)}); res.IsError {
			t.Fatalf("client %d: %s", i, text(res))
		}
		css = append(css, cs)
	}
	ids := logs.sessionIDs()
	if len(ids) != n {
		t.Fatalf("%d sessions started, want %d", len(ids), n)
	}
	return css, ids
}

// A sandbox killed from outside: that session's next call rebuilds it by
// replay (its variable is back, and the result says so); the other
// sessions never notice.
func TestSandboxKilledFromOutside(t *testing.T) {
	srv, logs := testServer(t, Options{}, true)
	css, ids := connectN(t, srv, logs, 3)
	killSandboxes(t, ids[1])
	for i, cs := range css {
		got := text(callTool(t, cs, "run_python", map[string]any{"code": "print('value', mine)"}))
		if !strings.Contains(got, fmt.Sprintf("value %d", 100+i)) {
			t.Errorf("client %d after the kill:\n%s", i, got)
		}
		if rebuilt := strings.Contains(got, "rebuilt"); rebuilt != (i == 1) {
			t.Errorf("client %d: rebuilt %v, want %v:\n%s", i, rebuilt, i == 1, got)
		}
	}
}

// The engine restarted under eight live sessions (cut, with every
// sandbox gone, as a restart without live-restore leaves them, then back):
// the call that was running gets a clear error naming the engine, and
// every session's next call answers right, rebuilt by replay, as the chat
// does.
func TestEngineRestartUnderEightSessions(t *testing.T) {
	const n = 8
	sandboxtest.Engine(t)
	real := os.Getenv("DOCKER_HOST") // the engine itself, Docker's or Podman's
	p := sandboxtest.NewEngineProxy(t)
	t.Setenv("DOCKER_HOST", p.Host())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	srv, logs := testServer(t, Options{Engine: e, MaxSessions: n}, false)
	css, ids := connectN(t, srv, logs, n)

	// One call is running when the engine goes.
	started := make(chan struct{})
	var cut *sdk.CallToolResult
	var cutErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		close(started)
		cut, cutErr = css[0].CallTool(ctx, &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": "import time\nfor _ in range(600): time.sleep(0.1)"}})
	})
	<-started
	time.Sleep(2 * time.Second) // the cell is running
	p.Cut()
	t.Setenv("DOCKER_HOST", real)
	killSandboxes(t, ids...)
	wg.Wait()
	if cutErr != nil {
		t.Fatalf("the cut call: a protocol error, want the tool's own: %v", cutErr)
	}
	t.Logf("the cut call:\n%s", text(cut))
	if got := text(cut); !cut.IsError || !strings.Contains(got, "engine") {
		t.Errorf("the cut call's result (isError %v) does not name the engine:\n%s", cut.IsError, got)
	}
	t.Setenv("DOCKER_HOST", p.Host())
	p.Restore()
	var mu sync.Mutex
	for i, cs := range css {
		wg.Go(func() {
			got := text(callTool(t, cs, "run_python", map[string]any{"code": "print('value', mine)"}))
			if !strings.Contains(got, fmt.Sprintf("value %d", 100+i)) || !strings.Contains(got, "rebuilt") {
				mu.Lock()
				t.Errorf("client %d after the restart:\n%s", i, got)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
