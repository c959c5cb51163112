package ui

import (
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/render"
)

// The model's thinking (reasoning models): shown dimmed while it streams,
// folded to one line once the answer or a cell starts, unfolded with the
// cell outputs by ctrl+o. It is never part of the answer.

// thinkingTail is how many lines of the thinking show while it streams.
const thinkingTail = 6

// addThinking appends a reasoning delta to the current thinking block.
func (m *Model) addThinking(text string) {
	if m.think == nil {
		m.think = m.transcript.add(&block{kind: kindThinking, streaming: true})
	}
	m.think.text += text
	m.think.ver++
}

// foldThinking ends the current thinking block: the answer begins.
func (m *Model) foldThinking() {
	if m.think == nil {
		return
	}
	m.think.streaming = false
	m.think.ver++
	if strings.TrimSpace(m.think.text) == "" {
		m.removeBlock(m.think)
	}
	m.think = nil
}

// dropThinking removes the thinking of a response that is requested again.
func (m *Model) dropThinking() {
	if m.think != nil {
		m.removeBlock(m.think)
		m.think = nil
	}
}

func (b *block) thinkingLines(rc renderCtx) []string {
	dim := rc.th.dim
	text := strings.TrimSpace(sanitize(b.text))
	if !b.streaming && !rc.expanded {
		words := len(strings.Fields(text))
		unit := "words"
		if words == 1 {
			unit = "word"
		}
		return []string{truncate(dim.Render(fmt.Sprintf("▸ thought · %d %s (ctrl+o expands)", words, unit)), rc.width)}
	}
	head := "▾ thought"
	w := max(rc.width-2, 8)
	if b.streaming {
		head = "◌ thinking…"
		if !rc.expanded {
			// Only the tail shows: wrapping all of a long thinking on
			// every delta would cost its length squared.
			if r := []rune(text); len(r) > thinkingTail*w*2 {
				text = string(r[len(r)-thinkingTail*w*2:])
			}
		}
	}
	out := []string{truncate(dim.Render(head), rc.width)}
	lines := strings.Split(render.Wrap(text, w, ""), "\n")
	if b.streaming && !rc.expanded && len(lines) > thinkingTail {
		lines = lines[len(lines)-thinkingTail:]
	}
	for _, l := range lines {
		out = append(out, truncate(dim.Render("  "+l), rc.width))
	}
	return out
}
