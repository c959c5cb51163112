package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
)

func TestConnectedSourcesInStatusAndSlashSources(t *testing.T) {
	fb := &fakeBackend{}
	m := New(context.Background(), Options{Backend: fb, Theme: "dark", Images: "blocks", Getenv: testEnv(true), Share: "values",
		Now:     func() time.Time { return fixedNow },
		Sources: []Source{{Name: "sales", Where: "analyst@db.example.com:5432/sales", Version: "15.14"}}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "ready"}})
	m.Update(startedMsg{})
	if s := screen(m); !strings.Contains(s, "1 database") {
		t.Fatalf("the status bar does not say a database is connected:\n%s", s)
	}
	m.slash("/sources")
	if s := screen(m); !strings.Contains(s, "sales — PostgreSQL 15.14, analyst@db.example.com:5432/sales") {
		t.Fatalf("/sources:\n%s", s)
	}

	plain, _ := newTestModel(t, 120, 30, true)
	plain.slash("/sources")
	if s := screen(plain); strings.Contains(s, "1 database") || !strings.Contains(s, "No database is connected") {
		t.Fatalf("without sources:\n%s", s)
	}
}
