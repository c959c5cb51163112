package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/agent"
)

// populated is a chat with chips, a finished turn (cell, table, figure),
// a long wide-Unicode notice and an answer still streaming.
func populated(t testing.TB) *Model {
	m, _ := newTestModel(t, 80, 40, true)
	attachedAs(m, "/tmp/sales.csv", (&fakeBackend{}).mustProfile())
	m.chips.adding("/tmp/" + strings.Repeat("长", 50) + ".csv")
	conversation(m)
	m.notice(levelWarn, strings.Repeat("数据🙂 ", 60))
	typeText(m, "next question")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventText, Text: "streaming **answer** " + strings.Repeat("word ", 50)})
	typeText(m, strings.Repeat("typed ", 30))
	return m
}

// TestResizeSweepNeverPanicsAndFits resizes a populated chat to every size
// from 1×1 to 120×40: no panic, never more lines than rows nor more cells
// than columns.
func TestResizeSweepNeverPanicsAndFits(t *testing.T) {
	for _, view := range []string{"chat", "table", "confirm"} {
		m := populated(t)
		switch view {
		case "table":
			m.Update(press("ctrl+t"))
		case "confirm":
			m.Update(inboxMsg{confirmRequest{cell: 2, code: strings.Repeat("x = 1\n", 30), reply: make(chan confirmReply, 1)}})
		}
		step := 1
		if raceOn {
			step = 7
		}
		for w := 1; w <= 120; w += step {
			for h := 1; h <= 40; h++ {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %dx%d: panic: %v", view, w, h, r)
						}
					}()
					m.Update(tea.WindowSizeMsg{Width: w, Height: h})
					v := m.View()
					s := v.Content
					if c := v.Cursor; c != nil && (c.X < 0 || c.Y < 0 || c.X >= w || c.Y >= h) {
						t.Errorf("%s %dx%d: cursor at %d,%d", view, w, h, c.X, c.Y)
					}
					lines := strings.Split(s, "\n")
					if len(lines) > h {
						t.Errorf("%s %dx%d: %d lines", view, w, h, len(lines))
					}
					for i, l := range lines {
						if got := ansi.StringWidth(l); got > w {
							t.Errorf("%s %dx%d: line %d is %d cells wide", view, w, h, i, got)
							break
						}
					}
				}()
				if t.Failed() {
					return
				}
			}
		}
	}
}
