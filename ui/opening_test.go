package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
)

// The opening question goes out once, after the start and the launch
// files, and the label stays in the status bar.
func TestOpeningQuestionWaitsForTheFiles(t *testing.T) {
	fb := &fakeBackend{}
	m := New(context.Background(), Options{Backend: fb, Files: []string{"a.csv", "b.csv"}, Ask: "the report",
		Label: "demo: scripted model, real sandbox", Getenv: testEnv(true), Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Init()
	m.Update(startedMsg{})
	if m.running || m.asked {
		t.Fatal("asked before the files were attached")
	}
	m.Update(attachedMsg{path: "a.csv"})
	if m.running {
		t.Fatal("asked with a file still being attached")
	}
	_, cmd := m.Update(attachedMsg{path: "b.csv"})
	if !m.running {
		t.Fatal("the opening question was not asked once the files were attached")
	}
	drain(t, m, cmd)
	if len(fb.asked) != 1 || fb.asked[0] != "the report" {
		t.Errorf("asked %q", fb.asked)
	}
	m.Update(inboxMsg{turnEndMsg{turn: m.turn, answer: "done"}})
	m.Update(attachedMsg{path: "c.csv"}) // a later attachment asks nothing
	if m.running {
		t.Error("asked a second time")
	}
	s := screen(m)
	lines := strings.Split(s, "\n")
	if !strings.Contains(strings.Join(lines[:len(lines)-3], "\n"), "the report") {
		t.Errorf("the question is not in the transcript:\n%s", s)
	}
	if bar := lines[len(lines)-2]; !strings.Contains(bar, "demo: scripted model, real sandbox") {
		t.Errorf("the status bar lacks the label: %q", bar)
	}
}

func TestOpeningQuestionNotAskedWithoutSandbox(t *testing.T) {
	fb := &fakeBackend{}
	m := New(context.Background(), Options{Backend: fb, Ask: "the report", Getenv: testEnv(true)})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "failed"}})
	m.Update(startedMsg{err: context.DeadlineExceeded})
	if m.running {
		t.Error("asked although the sandbox did not start")
	}
}
