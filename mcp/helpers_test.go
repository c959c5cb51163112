package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The session index goes to a folder of the test run's own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quarry-mcp-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// harness is a server and one client over the SDK's in-memory transport.
type harness struct {
	t     *testing.T
	srv   *Server
	cs    *sdk.ClientSession
	root  string
	index string
	logs  *logLines
}

type logLines struct {
	mu    sync.Mutex
	lines []string
	// onLine hears each line as the server logs it, on the server's
	// goroutine: a test acts at a known point of a call this way.
	onLine func(string)
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	on := l.onLine
	l.mu.Unlock()
	if on != nil {
		on(s)
	}
}

// snapshot is a copy of the lines logged so far.
func (l *logLines) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// sessionID is the id of the first quarry session the log says started.
func (l *logLines) sessionID() string {
	if ids := l.sessionIDs(); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// sessionIDs are the quarry sessions the log says started.
func (l *logLines) sessionIDs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for _, s := range l.lines {
		if rest, ok := strings.CutPrefix(s, "session "); ok && strings.Contains(s, " started for ") {
			ids = append(ids, strings.Fields(rest)[0])
		}
	}
	return ids
}

// testServer makes a server whose sessions use the real engine (unless
// sandbox is false: the test must not reach one), roots at a temp folder.
func testServer(t testing.TB, opts Options, sandbox bool) (*Server, *logLines) {
	t.Helper()
	if sandbox {
		opts.Engine = sandboxtest.Engine(t)
	}
	if opts.Roots == nil {
		opts.Roots = []string{t.TempDir()}
	}
	if opts.Config.Timeout == 0 {
		opts.Config.Timeout = time.Minute
	}
	if opts.Config.OutputDir == "" {
		opts.Config.OutputDir = t.TempDir()
	}
	if opts.Index == "" {
		opts.Index = t.TempDir()
	}
	logs := &logLines{}
	opts.Log = logs.add
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, logs
}

// newHarness connects one client to a new server.
func newHarness(t *testing.T, opts Options, sandbox bool, copts *sdk.ClientOptions) *harness {
	t.Helper()
	srv, logs := testServer(t, opts, sandbox)
	h := &harness{t: t, srv: srv, root: srv.Roots()[0], index: srv.opts.Index, logs: logs}
	h.cs = connectClient(t, srv, "test-client", copts)
	return h
}

func connectClient(t *testing.T, srv *Server, name string, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.sdk.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool; a protocol error fails the test (a tool's own error
// is the result's IsError).
func (h *harness) call(name string, args map[string]any) *sdk.CallToolResult {
	h.t.Helper()
	return callTool(h.t, h.cs, name, args)
}

func callTool(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed.
func (h *harness) ok(name string, args map[string]any) *sdk.CallToolResult {
	h.t.Helper()
	res := h.call(name, args)
	if res.IsError {
		h.t.Fatalf("%s %v: isError: %s", name, args, text(res))
	}
	return res
}

// text joins a result's text content.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// writeFile writes a file under the harness's root and returns its path.
func (h *harness) writeFile(name, content string) string {
	h.t.Helper()
	p := h.root + "/" + name
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// openSessions counts the MCP sessions the server holds (a session counts until
// its sandbox is gone).
func openSessions(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}
