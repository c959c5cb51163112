package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent"
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
