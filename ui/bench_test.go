package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// longChat fills a transcript with n messages: questions, answers with
// Markdown and cells with output and a table.
func longChat(tb testing.TB, n int) *Model {
	m, _ := newTestModel(tb, 120, 50, true)
	for i := 0; len(m.transcript.blocks) < n; i++ {
		m.transcript.add(&block{kind: kindUser, text: fmt.Sprintf("Question %d: what about column %d?", i, i)})
		m.transcript.add(&block{kind: kindAssistant, text: fmt.Sprintf("Answer %d with **bold**, `code` and a list:\n\n- one\n- two\n\nThe mean is %d.5.", i, i)})
		m.transcript.add(&block{kind: kindCell, cell: &cellState{num: i + 1, code: "df.describe()\nprint(df.shape)", run: cellDone,
			result: &kernel.Result{Stdout: strings.Repeat("output line\n", 12), Duration: time.Second, Value: &kernel.Value{Table: sampleTable()}}}})
	}
	return m
}

// BenchmarkFrame1000Messages is one frame (View) of a 1,000-message
// transcript after the first frame filled the caches.
func BenchmarkFrame1000Messages(b *testing.B) {
	m := longChat(b, 1000)
	_ = m.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkFrame1000MessagesScrolled is one frame scrolled to the middle.
func BenchmarkFrame1000MessagesScrolled(b *testing.B) {
	m := longChat(b, 1000)
	m.transcript.anchor = &anchor{block: 500}
	_ = m.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkResize1000Messages is the first frame after a resize: only the
// visible blocks are rendered at the new width.
func BenchmarkResize1000Messages(b *testing.B) {
	m := longChat(b, 1000)
	_ = m.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.width = 100 + i%40
		_ = m.View()
	}
}

// BenchmarkStreamingUpdate is one streaming step of a long answer: a batch
// of deltas, the render tick and the frame, in a 1,000-message transcript.
func BenchmarkStreamingUpdate(b *testing.B) {
	m := longChat(b, 1000)
	typeText(m, "q")
	m.Update(press("enter"))
	para := "The **revenue** grew by 12% in the East while the West fell; see the table below for details. "
	for i := 0; i < 40; i++ {
		feed(m, agent.Event{Kind: agent.EventText, Text: para})
		if i%5 == 4 {
			feed(m, agent.Event{Kind: agent.EventText, Text: "\n\n"})
		}
	}
	m.Update(streamTickMsg{})
	_ = m.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed(m, agent.Event{Kind: agent.EventText, Text: "more words "}, agent.Event{Kind: agent.EventText, Text: "arrive "})
		m.Update(streamTickMsg{})
		_ = m.View()
	}
}
