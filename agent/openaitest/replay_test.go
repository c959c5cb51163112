package openaitest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A recording with two responses, the second one's data line cut in two
// reads: it loads as two streams, and the rewritten call carries the code
// in as many fragments as the recording had.
func TestRecordingRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.sse.txt")
	body := "# notes\n" +
		`data: {"id":"a","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"weather","arguments":"{\"loc"}}]}}]}` + "\n\n" +
		`data: {"id":"a","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":\"SF\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" +
		`data: {"id":"b","choices":[{"index":0,"delta":{"content":"Hel` + "\n" + `lo"},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Streams) != 2 || len(rec.Streams[0]) != 2 || len(rec.Splits) != 1 {
		t.Fatalf("streams %d, splits %v", len(rec.Streams), rec.Splits)
	}
	call := rec.Streams[0].AsCall("x", `print("ü")`)
	var args strings.Builder
	pieces := 0
	call.deltas(func(_ Chunk, _, d map[string]any) {
		for _, tc := range d["tool_calls"].([]any) {
			fn := tc.(map[string]any)["function"].(map[string]any)
			if n, ok := fn["name"]; ok && n != "python" {
				t.Errorf("name %v", n)
			}
			args.WriteString(fn["arguments"].(string))
			pieces++
		}
	})
	var v map[string]string
	if json.Unmarshal([]byte(args.String()), &v) != nil || v["code"] != `print("ü")` || pieces != 2 {
		t.Errorf("arguments %q in %d pieces", args.String(), pieces)
	}
	answer := rec.Streams[0].AsAnswer("All done.")
	if answer.HasCalls() || !strings.Contains(strings.Join(Frame(answer, Framing{}), ""), `"finish_reason":"stop"`) {
		t.Errorf("answer = %v", answer)
	}
	text := rec.Streams[1].AsCall("call_t", "1")
	if !text.HasCalls() {
		t.Error("a text stream did not become a call")
	}
	if out := Frame(rec.Streams[1], Framing{Splits: map[int]int{0: 10}, NoDone: true}); len(out) != 2 || strings.Contains(out[1], "[DONE]") {
		t.Errorf("framed = %q", out)
	}
}
