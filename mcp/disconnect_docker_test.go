package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A client over HTTP that goes away in the middle of a cell (its
// connection closed, no cancellation sent): the cell is interrupted, the
// sandbox removed and the MCP session ended.
func TestHTTPClientGoneMidCell(t *testing.T) {
	srv, logs := testServer(t, Options{}, true)
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
	t.Cleanup(ts.Close)
	post := func(ctx context.Context, sid, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+Path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		return http.DefaultClient.Do(req)
	}
	ctx := context.Background()
	resp, err := post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gone","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if sid == "" {
		t.Fatalf("initialize: %s, no session id", resp.Status)
	}
	if resp, err = post(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cellCtx, drop := context.WithCancel(ctx)
	defer drop()
	go func() {
		if resp, err := post(cellCtx, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"import time\ntime.sleep(300)"}}}`); err == nil {
			io.Copy(io.Discard, resp.Body) // until the connection is dropped
			resp.Body.Close()
		}
	}()
	for deadline := time.Now().Add(time.Minute); logs.sessionID() == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call started no session")
		}
	}
	time.Sleep(2 * time.Second) // the cell is running
	drop()
	id := logs.sessionID()
	for deadline := time.Now().Add(time.Minute); openSessions(srv) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the session is still open a minute after its client went away:\n%s", strings.Join(logs.snapshot(), "\n"))
		}
	}
	said := strings.Join(logs.snapshot(), "\n")
	if !strings.Contains(said, "gone went away during a cell") || !strings.Contains(said, "session "+id+" of gone closed, its sandbox removed") {
		t.Errorf("the log does not say what happened:\n%s", said)
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}

// A client over HTTP that cancels its call (which drops the call's
// connection too) keeps its session: the cell is interrupted, the state
// stays.
func TestHTTPClientCancelKeepsSession(t *testing.T) {
	srv, logs := testServer(t, Options{}, true)
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
	t.Cleanup(ts.Close)
	tr := &sdk.StreamableClientTransport{Endpoint: ts.URL + Path, HTTPClient: &http.Client{Transport: bearer{"tok"}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "canceller", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if res := callTool(t, cs, "run_python", map[string]any{"code": "kept = 41"}); res.IsError {
		t.Fatal(text(res))
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(2 * time.Second); cancel() }()
	t0 := time.Now()
	cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": "import time\ntime.sleep(300)"}})
	if time.Since(t0) > time.Minute {
		t.Fatal("the cancel did not stop the call")
	}
	time.Sleep(disconnectGrace + time.Second) // past the wait for a cancellation
	res := callTool(t, cs, "run_python", map[string]any{"code": "print('kept', kept + 1)"})
	if got := text(res); res.IsError || !strings.Contains(got, "kept 42") {
		t.Fatalf("after the cancel: %s\n%s", got, strings.Join(logs.snapshot(), "\n"))
	}
}
