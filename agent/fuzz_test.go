package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFragment encodes raw bytes as a JSON string literal the way a server
// streams a fragment: bytes as they are (even half a UTF-8 sequence), or
// every UTF-16 unit as \uXXXX (even half a surrogate pair).
func jsonFragment(raw []byte, units []uint16) []byte {
	b := []byte{'"'}
	if units != nil {
		for _, u := range units {
			b = fmt.Appendf(b, `\u%04x`, u)
		}
		return append(b, '"')
	}
	for _, c := range raw {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = fmt.Appendf(b, `\u%04x`, c)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Streamed text split anywhere comes out whole, and the deltas the agent
// emits (completePrefix) join to the same text, each one valid UTF-8.
func FuzzFragmentsJoin(f *testing.F) {
	for _, s := range []string{"", "abc", trickyCode, "😀😀", "é\"\\\n\t", "東京"} {
		f.Add(s, uint(1), false)
		f.Add(s, uint(3), true)
	}
	f.Fuzz(func(t *testing.T, s string, cut uint, escape bool) {
		if !utf8.ValidString(s) {
			return // servers send text; invalid bytes are covered below
		}
		var frags [][]byte
		if escape {
			units := utf16.Encode([]rune(s))
			k := int(cut % uint(len(units)+1))
			frags = [][]byte{jsonFragment(nil, append([]uint16{}, units[:k]...)), jsonFragment(nil, append([]uint16{}, units[k:]...))}
		} else {
			k := int(cut % uint(len(s)+1))
			frags = [][]byte{jsonFragment([]byte(s[:k]), nil), jsonFragment([]byte(s[k:]), nil)}
		}
		var acc []byte
		var deltas strings.Builder
		shown := 0
		for _, fr := range frags {
			b, err := unquoteRaw(fr)
			if err != nil {
				t.Fatalf("unquoteRaw(%q): %v", fr, err)
			}
			acc = append(acc, b...)
			if k := completePrefix(acc); k > shown {
				d := joinSurrogates(acc[shown:k])
				if !utf8.ValidString(d) {
					t.Fatalf("delta %q is not valid UTF-8", d)
				}
				deltas.WriteString(d)
				shown = k
			}
		}
		deltas.WriteString(joinSurrogates(acc[shown:]))
		if got := joinSurrogates(acc); got != s {
			t.Fatalf("joined %q, want %q", got, s)
		}
		if deltas.String() != s {
			t.Fatalf("deltas joined %q, want %q", deltas.String(), s)
		}
	})
}

// unquoteRaw agrees with encoding/json on every valid UTF-8 literal, and
// never panics on anything else.
func FuzzUnquoteRaw(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83dx"`, `"\u00e9\/"`, `null`, `"\`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		b, err := unquoteRaw(lit)
		got := joinSurrogates(b)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		lit = bytes.TrimSpace(lit)
		if !utf8.Valid(lit) || len(lit) == 0 || lit[0] != '"' {
			return
		}
		var want string
		if json.Unmarshal(lit, &want) != nil {
			return // quarry is more lenient (e.g. raw control bytes)
		}
		if err != nil || got != want {
			t.Fatalf("unquoteRaw(%s) = %q, %v; encoding/json says %q", lit, got, err, want)
		}
	})
}

// Any sequence of chunks gives a bounded response or an error, never a
// panic; assembled calls yield code or a message for the model.
func FuzzResponseAdd(f *testing.F) {
	f.Add(callChunk("0") + "\n" + `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"x"}}]},"finish_reason":"tool_calls"}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"content":"\ud83d"}}]}` + "\n" + `{"choices":[{"index":0,"delta":{"content":"\ude00"}}],"usage":{"prompt_tokens":1}}`)
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"py"}},{"function":{"name":"thon","arguments":"1"}},{"id":"b"}]}}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-5}]}}]}`)
	f.Fuzz(func(t *testing.T, stream string) {
		r := &response{}
		for line := range strings.Lines(stream) {
			if r.addChunk([]byte(line)) != nil {
				break
			}
		}
		if len(r.calls) > maxToolCalls || r.size > maxResponseBytes {
			t.Fatalf("%d calls, %d bytes", len(r.calls), r.size)
		}
		if s := joinSurrogates(r.text); !utf8.ValidString(s) {
			t.Fatalf("text %q", s)
		}
		a := &Agent{}
		calls := toolCalls(r.calls)
		for i, tc := range a.historyCalls(calls) {
			if tc.id == "" || !utf8.ValidString(tc.args) {
				t.Fatalf("call %d: %+v", i, tc)
			}
		}
		for _, c := range calls {
			if code, problem := callCode(c, false); (code == "") == (problem == nil) {
				t.Fatalf("callCode(%+v) = %q, %q: want exactly one", c, code, problem)
			}
		}
	})
}
