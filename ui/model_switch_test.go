package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// In a chat whose model cannot be switched (the demo's script), /model
// NAME switches nothing: the status bar keeps the model, the backend is
// not told, and the chat says how to go on with a real model.
func TestFixedModelIsNotSwitched(t *testing.T) {
	fb := &fakeBackend{model: "scripted-demo"}
	m := New(context.Background(), Options{Backend: fb, Getenv: testEnv(true), Now: func() time.Time { return fixedNow },
		FixedModel: "To ask a real model, /quit and run quarry --resume s1."})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(startedMsg{})
	run(t, m, "/model gpt-4.1-mini")
	s := plain(m)
	if !strings.Contains(s, "Model: scripted-demo. To ask a real model, /quit and run quarry --resume s1.") {
		t.Errorf("no note:\n%s", s)
	}
	if fb.Model() != "scripted-demo" || strings.Contains(statusLine(s), "gpt-4.1-mini") || !strings.Contains(statusLine(s), "scripted-demo") {
		t.Errorf("the model was switched: backend %q, status %q", fb.Model(), statusLine(s))
	}
}

// Elsewhere /model NAME switches, and says so.
func TestModelSwitches(t *testing.T) {
	m, fb := newTestModel(t, 120, 24, true)
	run(t, m, "/model gpt-4.1-mini")
	if fb.Model() != "gpt-4.1-mini" || !strings.Contains(statusLine(plain(m)), "gpt-4.1-mini") {
		t.Errorf("not switched: %q", statusLine(plain(m)))
	}
}
