package doctor

import (
	"os"
	"strings"
	"testing"
)

// The MCP line names the command a client runs, quoted for a shell, and
// warns when the sandbox the tools need failed.
func TestCheckMCP(t *testing.T) {
	wd, _ := os.Getwd()
	c := checkMCP("/opt/my tools/quarry", true)
	want := "'/opt/my tools/quarry' mcp --root " + shellWord(wd)
	if c.State != OK || !strings.Contains(c.Detail, "a client runs: "+want) || !strings.Contains(c.Detail, "claude mcp add quarry -- "+want) {
		t.Fatalf("%+v", c)
	}
	if c := checkMCP("/usr/bin/quarry", false); c.State != Warning || c.Fix == "" || !strings.Contains(c.Detail, "/usr/bin/quarry mcp --root") {
		t.Fatalf("without a sandbox: %+v", c)
	}
	if got := shellWord("it's"); got != `'it'\''s'` {
		t.Fatalf("shellWord: %s", got)
	}
}
