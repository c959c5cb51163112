package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
)

// A mistake in quarry mcp's flags is a usage error, found before anything
// listens or starts.
func TestMCPUsageErrors(t *testing.T) {
	isolateConfig(t)
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:8765"}, "--allow-remote"},
		{[]string{"mcp", "--http", ":8765"}, "every interface"},
		{[]string{"mcp", "--http", "nonsense"}, "HOST:PORT"},
		{[]string{"mcp", "--allow-remote"}, "go with --http"},
		{[]string{"mcp", "--token-file", "t"}, "go with --http"},
		{[]string{"mcp", "--root", "/nonexistent/folder"}, "--root /nonexistent/folder"},
		{[]string{"mcp", "--idle-timeout", "5m"}, "go with --http"},
		{[]string{"mcp", "--max-sessions", "-1"}, "positive"},
		{[]string{"mcp", "--max-sessions", "0"}, "--max-sessions 0: give a positive number"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--idle-timeout", "0s"}, "--idle-timeout 0s: give a positive duration"},
		{[]string{"mcp", "--warm", "1"}, "go with --http"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--warm", "-1"}, "--warm -1: give 0"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--warm", "3", "--max-sessions", "2"}, "up to --max-sessions (2)"},
		{[]string{"mcp", "extra"}, "mcp"},
	} {
		code, out, errs := runCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errs, c.want)
		}
	}
}

// On stdio, standard output carries the protocol alone: an initialize is
// answered there, the log goes to standard error, and the end of standard
// input ends the server (exit 0) without any sandbox.
func TestMCPStdioAnswersInitialize(t *testing.T) {
	isolateConfig(t)
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var errb syncWriter
	done := make(chan int, 1)
	go func() {
		done <- run(Build{Version: "test"}, []string{"mcp", "--root", t.TempDir(), "--output-dir", t.TempDir()}, stdinR, stdoutW, &errb)
		stdoutW.Close()
	}()
	io.WriteString(stdinW, in)
	line, err := bufio.NewReader(stdoutR).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer on stdout: %v", err)
	}
	stdinW.Close() // the client goes
	go io.Copy(io.Discard, stdoutR)
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct{ Name, Version string }
			Instructions    string
		}
	}
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("stdout is not a JSON-RPC answer (%v):\n%s", err, line)
	}
	if res.ID != 1 || res.Result.ServerInfo.Name != "quarry" || res.Result.ProtocolVersion != "2025-11-25" || !strings.Contains(res.Result.Instructions, "check_numbers") {
		t.Fatalf("initialize: %+v", res)
	}
	if !strings.Contains(errb.String(), "serving MCP on standard input and output") {
		t.Fatalf("stderr: %s", errb.String())
	}
}

// syncWriter is a buffer the server's goroutines may write while the test
// reads it.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
