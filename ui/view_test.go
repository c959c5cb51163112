package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

func TestViewGolden(t *testing.T) {
	for _, dark := range []bool{false, true} {
		name := "light"
		if dark {
			name = "dark"
		}
		t.Run("conversation_80x40_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 40, dark)
			attachedAs(m, "/tmp/sales.csv", (&fakeBackend{}).mustProfile())
			conversation(m)
			golden.RequireEqual(t, screen(m))
		})
		t.Run("confirm_80x24_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24, dark)
			m.Update(inboxMsg{confirmRequest{cell: 2, code: "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\ndf.describe()", reply: make(chan confirmReply, 1)}})
			golden.RequireEqual(t, screen(m))
		})
		t.Run("table_60x14_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 60, 14, dark)
			m.lastTable = sampleTable()
			m.Update(press("ctrl+t"))
			m.Update(press("right"))
			m.Update(press("s"))
			golden.RequireEqual(t, m.View().Content)
		})
		// A reasoning model: its thinking streams dimmed, folds to one
		// line when the answer starts, and unfolds with ctrl+o.
		t.Run("thinking_80x20_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 20, dark)
			thinking(m)
			golden.RequireEqual(t, screen(m))
		})
		t.Run("thought_80x20_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 20, dark)
			thinking(m)
			answerAfterThinking(m)
			golden.RequireEqual(t, screen(m))
		})
		t.Run("thought_expanded_80x24_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24, dark)
			thinking(m)
			answerAfterThinking(m)
			m.Update(press("ctrl+o"))
			golden.RequireEqual(t, screen(m))
		})
		t.Run("empty_60x12_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 60, 12, dark)
			golden.RequireEqual(t, screen(m))
		})
	}
}

func (f *fakeBackend) mustProfile() (p kernel.Profile) {
	p, err := f.Attach(nil, "sales.csv")
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return p
}

// thinking starts a turn whose model streams its reasoning, more lines
// than show while it streams (the last ones do; an escape sequence in it
// is sanitized).
func thinking(m *Model) {
	typeText(m, "Which region grew most?")
	m.Update(press("enter"))
	var evs []agent.Event
	for i, s := range []string{
		"The user asks which region grew most between the quarters. ",
		"I should load sales.csv, sum revenue by region for Q1 and Q2, ",
		"then compare the growth rates rather than the absolute change, ",
		"since the regions differ in size. ",
		"North had 1,200 in Q1; I need Q2 before saying anything. ",
		"West is small, so its rate may be noisy: I will mention that. ",
		"A bar chart of the growth rate per region would help. ",
		"I also need to check for missing months, which would skew a quarter's total, ",
		"and for returns booked as negative revenue. ",
		"Let me write the code.\x1b[31m",
	} {
		evs = append(evs, agent.Event{Kind: agent.EventReasoning, Text: s, Time: fixedNow.Add(time.Duration(i) * time.Second)})
	}
	feed(m, evs...)
}

func answerAfterThinking(m *Model) {
	feed(m,
		agent.Event{Kind: agent.EventText, Text: "**East** grew most: +12% from Q1 to Q2."},
		agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Total: agent.Tokens{Prompt: 900, Completion: 410, Reasoning: 380}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "**East** grew most: +12% from Q1 to Q2."},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}
