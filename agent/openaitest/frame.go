package openaitest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Framing is how the chunks go on the wire.
type Framing struct {
	// Sep ends each event: "\n\n" (the default), "\r\n\r\n", or the
	// "\n\n\n" llama-server sends.
	Sep string
	// NoDone leaves out "data: [DONE]": the connection just closes.
	NoDone bool
	// Comment, when set, is an SSE comment line sent before each chunk
	// after the first (": ping - …", ": OPENROUTER PROCESSING").
	Comment string
	// Splits, from the Recording, cut those chunks' lines into two writes.
	Splits map[int]int
}

// Frame writes the chunks as a text/event-stream body, one write per
// element of the result (the server flushes between them).
func Frame(s Stream, f Framing) []string {
	sep := f.Sep
	if sep == "" {
		sep = "\n\n"
	}
	var out []string
	for i, c := range s {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(c)
		payload := strings.TrimRight(b.String(), "\n")
		if i > 0 && f.Comment != "" {
			out = append(out, ": "+f.Comment+sep)
		}
		if cut, ok := f.Splits[i]; ok && cut < len(payload) {
			for cut > 0 && !utf8.RuneStart(payload[cut]) {
				cut--
			}
			out = append(out, "data: "+payload[:cut], payload[cut:]+sep)
			continue
		}
		out = append(out, "data: "+payload+sep)
	}
	if !f.NoDone {
		out = append(out, "data: [DONE]"+sep)
	}
	return out
}

// Writes answers 200 text/event-stream with parts written in order, each
// flushed: a stream cut where the recorded server's writes were cut.
func Writes(parts ...string) Reply { return Reply{RawWrites: parts} }
