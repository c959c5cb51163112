package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

func TestThinkingIsNotTheAnswerAndGoesWithARetry(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventReasoning, Text: "first try"},
		agent.Event{Kind: agent.EventRetry, Text: "server error (502)"},
		agent.Event{Kind: agent.EventReasoning, Text: "second try"},
		agent.Event{Kind: agent.EventText, Text: "The answer."})
	var kinds []blockKind
	for _, b := range m.transcript.blocks {
		kinds = append(kinds, b.kind)
		if b.kind == kindAssistant && b.text != "The answer." {
			t.Errorf("answer block = %q", b.text)
		}
		if b.kind == kindThinking && (b.text != "second try" || b.streaming) {
			t.Errorf("thinking block = %q, streaming %v", b.text, b.streaming)
		}
	}
	if s := screen(m); strings.Contains(s, "first try") || !strings.Contains(s, "▸ thought · 2 words") {
		t.Errorf("screen:\n%s", s)
	}
}

func TestStatusShowsWhatTheModelSees(t *testing.T) {
	fb := &fakeBackend{}
	m := New(context.Background(), Options{Backend: fb, Share: "schema", Getenv: testEnv(true)})
	m.width, m.height = 100, 20
	if s := screen(m); !strings.Contains(s, "schema only") {
		t.Errorf("status line without the share mode:\n%s", s)
	}
}

// A running cell's progress on a Dask cluster shows in the status line,
// never in the cell's output, and goes with the cell.
func TestClusterProgressInTheStatusLine(t *testing.T) {
	m, _ := newTestModel(t, 140, 24, true)
	typeText(m, "q")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "r = gl.groupby('account').cents.sum().compute()"},
		agent.Event{Kind: agent.EventCellOutput, Cell: 1, Chunk: &kernel.Chunk{Stream: kernel.Progress, Text: "120 of 480 tasks done on the Dask cluster"}})
	s := screen(m)
	if !strings.Contains(s, "cell 1") || !strings.Contains(s, "120 of 480 tasks done on the Dask cluster") {
		t.Errorf("the status line does not show the cluster's progress:\n%s", s)
	}
	if b := m.cells[1]; b == nil || strings.Contains(b.cell.output.String(), "tasks done") {
		t.Errorf("the progress went into the cell's output")
	}
	feed(m, agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{}})
	if s := screen(m); strings.Contains(s, "120 of 480") {
		t.Errorf("the progress outlived its cell:\n%s", s)
	}
}
