package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// secondTurn asks a follow-up whose cell makes a file and a figure.
func secondTurn(m *Model) {
	typeText(m, "Now split it by month and save it.")
	m.Update(press("enter"))
	feed(m,
		agent.Event{Kind: agent.EventCellStart, Cell: 2, Code: "monthly = df.groupby('month').sum()\nmonthly.to_csv('/output/monthly.csv')", Time: fixedNow.Add(-time.Second)},
		agent.Event{Kind: agent.EventCellDone, Cell: 2, Result: &kernel.Result{Duration: 300 * time.Millisecond,
			Value:   &kernel.Value{Repr: "monthly", Table: sampleTable()},
			Figures: []kernel.File{{Name: "figures/cell2-1.png", Path: "/tmp/quarry-output/s1/figures/cell2-1.png", Size: 900, Width: 40, Height: 20}}}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Saved **monthly.csv**."},
	)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}

func TestUndoTakesBackTheLastTurn(t *testing.T) {
	m, fb := newTestModel(t, 80, 40, true)
	conversation(m)
	m.notice(levelInfo, "between the questions")
	secondTurn(m)
	if m.lastFigure != "/tmp/quarry-output/s1/figures/cell2-1.png" || m.cells[2] == nil {
		t.Fatalf("second turn not shown: figure %q", m.lastFigure)
	}
	fb.undone = Undone{Question: "Now split it by month and save it.", Removed: []string{"figures/cell2-1.png", "monthly.csv"}}
	typeText(m, "/undo")
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
	if fb.undos != 1 {
		t.Fatalf("Undo called %d times", fb.undos)
	}
	var texts []string
	for _, b := range m.transcript.blocks {
		texts = append(texts, b.text)
	}
	all := strings.Join(texts, "\n")
	for _, gone := range []string{"Now split it by month and save it.\n", "Saved **monthly.csv**."} {
		if strings.Contains(all, gone) {
			t.Errorf("%q still in the transcript after /undo:\n%s", gone, all)
		}
	}
	for _, kept := range []string{"What is the revenue by region?", "highest in the **East**", "between the questions", "Removed from the output folder: figures/cell2-1.png, monthly.csv."} {
		if !strings.Contains(all, kept) {
			t.Errorf("%q missing after /undo:\n%s", kept, all)
		}
	}
	if m.cells[2] != nil || m.cells[1] == nil || m.lastFigure != "/tmp/quarry-output/s1/fig1.png" {
		t.Errorf("cells after undo: %v, last figure %q (want the first turn's)", m.cells, m.lastFigure)
	}
	if got := m.input.value(); got != "Now split it by month and save it." {
		t.Errorf("input after undo: %q, want the question back", got)
	}
	golden.RequireEqual(t, screen(m))

	// Again: the first question goes too; the input keeps what is typed.
	m.input.setValue("draft")
	fb.undone = Undone{Question: "What is the revenue by region?", Replayed: 3, Warning: "cell 2 of 3 failed this time"}
	drain(t, m, m.slash("/undo"))
	view := plain(m)
	if strings.Contains(view, "highest in the East") || !strings.Contains(view, "so 3 earlier cells ran") ||
		!strings.Contains(view, "cell 2 of 3 failed") || strings.Count(view, "back in the input") != 1 {
		t.Errorf("second /undo:\n%s", view)
	}
	if m.input.value() != "draft" || m.lastTable != nil || m.lastFigure != "" {
		t.Errorf("after the second undo: input %q, table %v, figure %q", m.input.value(), m.lastTable, m.lastFigure)
	}

	fb.undoErr = errors.New("nothing to undo: no question was asked since the session began (or since /reset)")
	drain(t, m, m.slash("/undo"))
	if !strings.Contains(plain(m), "/undo: nothing to undo") {
		t.Errorf("the error is not shown:\n%s", plain(m))
	}
}

func TestUndoWaitsForTheRunningAnswer(t *testing.T) {
	m, fb := newTestModel(t, 80, 24, false)
	typeText(m, "Long question")
	m.Update(press("enter"))
	if cmd := m.slash("/undo"); cmd != nil || fb.undos != 0 || !strings.Contains(m.status.hint, "Esc") {
		t.Fatalf("/undo during an answer: cmd %v, undos %d, hint %q", cmd != nil, fb.undos, m.status.hint)
	}
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	cmd := m.slash("/undo")
	if cmd == nil {
		t.Fatal("/undo after the answer did nothing")
	}
	// While it runs, a new question waits.
	typeText(m, "next")
	m.Update(press("enter"))
	if !strings.Contains(m.status.hint, "taken back") || m.running {
		t.Errorf("question sent during /undo: hint %q running %v", m.status.hint, m.running)
	}
	drain(t, m, cmd)
	if m.undoing {
		t.Error("still undoing after the answer came")
	}
}

// A resumed question can be taken back like one asked in this chat.
func TestUndoTakesBackAResumedTurn(t *testing.T) {
	log := &restoreLog{}
	m, cmd := resumedModel(t, &Resume{ID: "s", Turns: pastTurns(t), Restore: log.restore})
	drain(t, m, cmd)
	fb := m.opts.Backend.(*fakeBackend)
	fb.undone = Undone{Question: "revenue by region?", Replayed: 0}
	drain(t, m, m.slash("/undo"))
	for _, b := range m.transcript.blocks {
		if b.kind == kindUser || b.kind == kindCell || b.kind == kindAssistant {
			t.Errorf("a block of the resumed turn is still shown: %+v", b.text)
		}
	}
	if m.input.value() != "revenue by region?" || m.lastTable != nil || len(m.cells) != 0 {
		t.Errorf("after undo: input %q, table %v, cells %d", m.input.value(), m.lastTable, len(m.cells))
	}
}

// A table the viewer saved of an undone cell goes with it, and is named
// with the files the session removed; one of an earlier question stays.
func TestUndoRemovesTheViewersSavedTables(t *testing.T) {
	m, fb := newTestModel(t, 80, 40, true)
	out := t.TempDir()
	m.opts.OutputDir = out
	conversation(m)
	save := func() {
		m.Update(press("ctrl+t"))
		_, cmd := m.Update(press("w"))
		if cmd == nil {
			t.Fatal("w gave no command")
		}
		m.Update(cmd())
		m.Update(press("q"))
	}
	save() // cell 1's table
	secondTurn(m)
	save() // cell 2's
	first, second := filepath.Join(out, "tables", "cell1.csv"), filepath.Join(out, "tables", "cell2.csv")
	for _, p := range []string{first, second} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("not saved: %v", err)
		}
	}
	fb.undone = Undone{Question: "Now split it by month and save it.", Removed: []string{"figures/cell2-1.png", "monthly.csv"}}
	drain(t, m, m.slash("/undo"))
	if _, err := os.Stat(second); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the undone cell's saved table is still there: %v", err)
	}
	if _, err := os.Stat(first); err != nil {
		t.Errorf("the earlier question's saved table went: %v", err)
	}
	if v := strings.Join(strings.Fields(plain(m)), " "); !strings.Contains(v, "Removed from the output folder: figures/cell2-1.png, monthly.csv, tables/cell2.csv.") {
		t.Errorf("the saved table is not named:\n%s", v)
	}
}
