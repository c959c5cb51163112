package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/kernel"
)

func TestTranscriptIsJSONLWithoutKey(t *testing.T) {
	const key = "sk-test-DO-NOT-LEAK-0123456789"
	p := filepath.Join(t.TempDir(), transcriptName)
	s := New(Options{Config: config.Config{Model: "m", APIKey: key}})
	tr, err := openTranscript(p, s.mask)
	if err != nil {
		t.Fatal(err)
	}
	s.transcript = tr
	tr.header("s1", "gpt-fake")
	tr.user("variance by department")
	s.publish(agent.Event{Kind: agent.EventCellDone, Cell: 1, Code: "print(1)", Result: &kernel.Result{Stdout: "1\n"}}, nil)
	s.publish(agent.Event{Kind: agent.EventError, Text: "401 Incorrect API key provided: " + key}, nil)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	tr.user("after close is dropped") // must not panic

	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), key) {
		t.Fatalf("transcript contains the API key:\n%s", data)
	}
	var kinds []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		var rec struct{ Kind, Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		kinds = append(kinds, rec.Kind)
	}
	if got := strings.Join(kinds, ","); got != "session,user,cell_done,error" {
		t.Fatalf("kinds = %s", got)
	}
}

func TestAgentConfig(t *testing.T) {
	c := config.Config{
		Model: "m", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", AzureAPIVersion: "2024-10-21",
		ToolMode: "native", MaxSteps: 7, Share: "schema", Stream: true, StallTimeout: 5 * time.Second,
		Prices: map[string]config.Price{"m": {Input: 1.5, Output: 6}},
	}
	a := AgentConfig(c)
	if a.Model != "m" || a.BaseURL != c.BaseURL || a.APIKey != "k" || a.AzureAPIVersion != c.AzureAPIVersion ||
		a.ToolMode != "native" || a.MaxSteps != 7 || a.Share != "schema" || a.NoStream || a.StreamIdleTimeout != 5*time.Second {
		t.Fatalf("AgentConfig = %+v", a)
	}
	if p := a.Prices["m"]; p.Input != 1.5 || p.Output != 6 {
		t.Fatalf("price = %+v", p)
	}
}

func TestNewDoesNoIOAndCloseTwice(t *testing.T) {
	dir := t.TempDir()
	states := &stateLog{}
	s := New(Options{Config: config.Config{Model: "m", OutputDir: dir}, Events: states.event})
	if st := states.last(); st != StateNew {
		t.Fatalf("state = %s", st)
	}
	if want := filepath.Join(dir, s.ID()); s.OutputDir() != want {
		t.Fatalf("OutputDir = %s, want %s", s.OutputDir(), want)
	}
	if _, err := os.Stat(s.OutputDir()); !os.IsNotExist(err) {
		t.Fatalf("New created the output folder: %v", err)
	}
	exact := filepath.Join(dir, "exact")
	if s2 := New(Options{OutputDir: exact}); s2.OutputDir() != exact {
		t.Fatalf("OutputDir = %s, want exactly %s", s2.OutputDir(), exact)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Start(t.Context()); err == nil {
		t.Fatal("Start after Close succeeded")
	}
}
