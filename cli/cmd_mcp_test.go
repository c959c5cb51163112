package cli

import (
	"bytes"
	"encoding/json"
	"strings"
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
		{[]string{"mcp", "--max-sessions", "-1"}, "positive"},
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
	var out, errb bytes.Buffer
	code := run(Build{Version: "test"}, []string{"mcp", "--root", t.TempDir(), "--output-dir", t.TempDir()}, strings.NewReader(in), &out, &errb)
	if code != exitOK {
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
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one JSON-RPC answer (%v):\n%s", err, out.String())
	}
	if res.ID != 1 || res.Result.ServerInfo.Name != "quarry" || res.Result.ProtocolVersion != "2025-11-25" || !strings.Contains(res.Result.Instructions, "check_numbers") {
		t.Fatalf("initialize: %+v", res)
	}
	if !strings.Contains(errb.String(), "serving MCP on standard input and output") {
		t.Fatalf("stderr: %s", errb.String())
	}
}
