package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
)

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

// A session closed before any question or cell leaves nothing to list or
// resume; one with a question stays.
func TestIdleSessionIsForgotten(t *testing.T) {
	for _, asked := range []bool{false, true} {
		index, parent := t.TempDir(), t.TempDir()
		s := New(Options{Config: config.Config{Model: "m", OutputDir: parent}, Index: index})
		os.MkdirAll(s.OutputDir(), 0o700)
		if err := s.openRecord(); err != nil {
			t.Fatal(err)
		}
		if asked {
			s.rec.question("variance?")
		}
		s.Close()
		list, _, _ := ListSessions(index)
		_, err := os.Stat(s.OutputDir())
		if asked && (len(list) != 1 || err != nil) || !asked && (len(list) != 0 || !os.IsNotExist(err)) {
			t.Errorf("asked %v: listed %d, folder %v", asked, len(list), err)
		}
	}
}
