package agent

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// Code with multi-byte characters, an emoji (a surrogate pair in \u form),
// quotes, backslashes and newlines: every split position must survive.
const trickyCode = "s = \"Zürich — 東京 😀\"\nprint(s.replace('\\\\', '/'), \"\\\"q\\\"\")\n"

func TestArgumentsSplitAnywhere(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		escape bool
	}{
		{"every byte", 1, false},
		{"two bytes", 2, false},
		{"three bytes", 3, false},
		{"unicode escapes one unit", 1, true},
		{"unicode escapes three units", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := openaitest.ToolCalls(trickyCode)
			call.Text = "Prüfe 😀 …"
			call.ChunkSize, call.EscapeUnicode = tc.size, tc.escape
			final := openaitest.Text("Fertig: 東京 😀.")
			final.ChunkSize, final.EscapeUnicode = tc.size, tc.escape
			srv := openaitest.New(t, call, final)
			k := echoKernel()
			a := newAgent(t, testConfig(srv), k)
			ans, rec, err := run(t, a, "q")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := k.Codes(); !slices.Equal(got, []string{trickyCode}) {
				t.Errorf("kernel ran %q, want %q", got, trickyCode)
			}
			if ans != "Fertig: 東京 😀." {
				t.Errorf("answer = %q", ans)
			}
			var text strings.Builder
			for _, e := range rec.of(EventText) {
				if !utf8.ValidString(e.Text) || strings.ContainsRune(e.Text, utf8.RuneError) {
					t.Errorf("text delta %q is not clean UTF-8", e.Text)
				}
				text.WriteString(e.Text)
			}
			if text.String() != "Prüfe 😀 …Fertig: 東京 😀." {
				t.Errorf("text deltas joined = %q", text.String())
			}
			// The call goes back to the model as it was sent.
			if args := srv.ChatRequests()[1].Messages()[2].ToolCalls[0].Function.Arguments; args != openaitest.PythonCall(trickyCode).Arguments {
				t.Errorf("arguments in history = %q", args)
			}
		})
	}
}

func TestUnquoteRawKeepsPartialSequences(t *testing.T) {
	// "é" is C3 A9: split across two fragments, as raw bytes on the wire.
	a, err1 := unquoteRaw([]byte("\"caf\xc3\""))
	b, err2 := unquoteRaw([]byte("\"\xa9 \\\"x\\\"\""))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if got := joinSurrogates(append(a, b...)); got != "café \"x\"" {
		t.Errorf("got %q", got)
	}
	// A surrogate pair split across fragments.
	hi, _ := unquoteRaw([]byte(`"\ud83d"`))
	lo, _ := unquoteRaw([]byte(`"\ude00!"`))
	if got := joinSurrogates(append(hi, lo...)); got != "😀!" {
		t.Errorf("got %q", got)
	}
	if got := joinSurrogates(hi); got != "\uFFFD" {
		t.Errorf("a lone surrogate gave %q", got)
	}
	if got, _ := unquoteRaw([]byte("null")); got != nil {
		t.Errorf("null gave %q", got)
	}
	for _, bad := range []string{`"\`, `"\x"`, `"\u12"`, `abc`} {
		if _, err := unquoteRaw([]byte(bad)); err == nil {
			t.Errorf("unquoteRaw(%q) accepted", bad)
		}
	}
}

func TestCompletePrefixHoldsBackUnfinished(t *testing.T) {
	hi, _ := unquoteRaw([]byte(`"ab\ud83d"`))
	for in, want := range map[string]int{
		"abc": 3, "ab\xc3": 2, "ab\xe6\x9d": 2, "ab\xf0\x9f\x98": 2, "ab\xf0\x9f\x98\x80": 6, "é": 2,
		string(hi): 2,
	} {
		if got := completePrefix([]byte(in)); got != want {
			t.Errorf("completePrefix(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestToolCallsWithoutIndexOrID(t *testing.T) {
	r := &response{}
	c, _ := r.callFor(nil, "call_a")
	c.id, c.args = "call_a", []byte("1")
	c, _ = r.callFor(nil, "")
	c.args = append(c.args, '2')
	c, _ = r.callFor(nil, "call_b")
	c.id = "call_b"
	if len(r.calls) != 2 || string(r.calls[0].args) != "12" {
		t.Errorf("calls = %d, args %q", len(r.calls), r.calls[0].args)
	}
}
