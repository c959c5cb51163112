package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// BenchmarkStreamedAnswer measures the client side of streaming: a 20 KB
// answer in 4-byte chunks (about 5,000 SSE events) through go-openai, the
// raw chunk decoding and the event callback.
func BenchmarkStreamedAnswer(b *testing.B) {
	answer := strings.Repeat("Umsatz 東京 😀 ", 1100)[:20000]
	srv := openaitest.Start()
	defer srv.Close()
	srv.Handle(func(openaitest.Request) openaitest.Reply {
		r := openaitest.Text(answer)
		r.ChunkSize = 4
		return r
	})
	a, _ := New(Config{Model: "m", BaseURL: srv.URL, APIKey: "k"}, echoKernel())
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		a.Reset()
		if _, err := a.Run(context.Background(), "q", func(Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}
