package doctor

import (
	"os"
	"strings"
)

// checkMCP says the command an MCP client (Claude Code, Claude Desktop,
// Codex, Cursor, VS Code) runs to reach this quarry, and whether the
// sandbox its tools need works. exe is quarry's own path; "" finds it.
func checkMCP(exe string, sandboxOK bool) Check {
	r := Check{Name: "mcp server"}
	if exe == "" {
		if p, err := os.Executable(); err == nil {
			exe = p
		} else {
			exe = "quarry"
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "DIR"
	}
	cmd := shellWord(exe) + " mcp --root " + shellWord(wd)
	r.Detail = "a client runs: " + cmd + "\nClaude Code: claude mcp add quarry -- " + cmd + "; the other clients' settings are in docs/mcp.md"
	if !sandboxOK {
		r.State, r.Fix = Warning, "the tools run in the sandbox: fix the sandbox check above first"
	}
	return r
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
