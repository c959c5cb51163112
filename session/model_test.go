package session

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
)

type silentScript struct{}

func (silentScript) Reply(agent.ScriptTurn) agent.ScriptReply {
	return agent.ScriptReply{Text: "scripted"}
}

// A session whose model is a script (quarry demo) refuses another model's
// name, so that nothing records it as that model; the refusal says how to
// go on with one.
func TestScriptedModelIsNotSwitched(t *testing.T) {
	s := New(Options{Config: config.Config{Model: "gpt-x", ToolMode: "native", OutputDir: t.TempDir()},
		Agent: func(c *agent.Config) { c.Script, c.Model = silentScript{}, "scripted-demo" }})
	err := s.SetModel("gpt-4.1-mini")
	if err == nil || !strings.Contains(err.Error(), "quarry --resume "+s.ID()) {
		t.Fatalf("SetModel = %v, want a refusal naming --resume", err)
	}
	if got := s.Model(); got != "scripted-demo" {
		t.Errorf("model = %q, want scripted-demo", got)
	}
}
