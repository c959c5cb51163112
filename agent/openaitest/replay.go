package openaitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Replays of streams recorded from real model servers. A recording is read
// from a file (one chunk JSON per line, or SSE "data:" lines; "#" lines
// are notes), split into the responses it holds, and rewritten so that its
// tool call runs a real cell (AsCall) or its text is an answer the test
// chooses (AsAnswer), keeping everything else the server sent: the keys,
// the fragmenting, the ids, the finish chunk, the usage. Framing puts it
// on the wire.

// Chunk is one stream chunk as the server sent it.
type Chunk map[string]any

// Stream is the chunks of one response, in order.
type Stream []Chunk

// Recording is a recorded file: one or more responses back to back, and
// the points where the recorder saw a data line arrive in two reads.
type Recording struct {
	Path    string
	Streams []Stream
	// Splits maps a chunk (by stream and position) to the byte offset in
	// its JSON where the line was cut between two reads.
	Splits map[[2]int]int
}

// LoadRecording reads a recorded stream. Responses are told apart by the
// chunk id: a new non-empty id starts the next response.
func LoadRecording(path string) (*Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Path: path, Splits: map[[2]int]int{}}
	var payloads []string
	var cuts []int // per payload: where a continuation line was joined, or -1
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, ":"):
		case strings.HasPrefix(t, "data:"):
			p := strings.TrimSpace(strings.TrimPrefix(t, "data:"))
			if p != "[DONE]" {
				payloads, cuts = append(payloads, p), append(cuts, -1)
			}
		case strings.HasPrefix(t, "{") && !continues(payloads):
			payloads, cuts = append(payloads, t), append(cuts, -1)
		case len(payloads) > 0:
			// A data line the recorder received in two reads.
			cuts[len(cuts)-1] = len(payloads[len(payloads)-1])
			payloads[len(payloads)-1] += line
		default:
			return nil, fmt.Errorf("%s: a line that is neither data nor a chunk: %.40q", path, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	lastID := ""
	for i, p := range payloads {
		var c Chunk
		dec := json.NewDecoder(strings.NewReader(p))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: chunk %d: %v", path, i+1, err)
		}
		id, _ := c["id"].(string)
		if len(rec.Streams) == 0 || (id != "" && lastID != "" && id != lastID) {
			rec.Streams = append(rec.Streams, nil)
		}
		if id != "" {
			lastID = id
		}
		s := len(rec.Streams) - 1
		if cuts[i] >= 0 {
			rec.Splits[[2]int{s, len(rec.Streams[s])}] = cuts[i]
		}
		rec.Streams[s] = append(rec.Streams[s], c)
	}
	if len(rec.Streams) == 0 {
		return nil, fmt.Errorf("%s: no chunks", path)
	}
	return rec, nil
}

// continues says whether the last payload is unfinished JSON, so that the
// next line is its rest rather than a chunk of its own.
func continues(payloads []string) bool {
	return len(payloads) > 0 && !json.Valid([]byte(payloads[len(payloads)-1]))
}

// Clone is a deep copy of s.
func (s Stream) Clone() Stream {
	b, _ := json.Marshal(s)
	var out Stream
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.Decode(&out)
	return out
}

// choices walks every choice's delta of the stream.
func (s Stream) deltas(f func(chunk Chunk, choice, delta map[string]any)) {
	for _, c := range s {
		chs, _ := c["choices"].([]any)
		for _, ch := range chs {
			choice, _ := ch.(map[string]any)
			if choice == nil {
				continue
			}
			d, _ := choice["delta"].(map[string]any)
			if d == nil {
				continue
			}
			f(c, choice, d)
		}
	}
}

// HasCalls says whether any chunk carries tool_calls.
func (s Stream) HasCalls() bool {
	found := false
	s.deltas(func(_ Chunk, _, d map[string]any) {
		if calls, _ := d["tool_calls"].([]any); len(calls) > 0 {
			found = true
		}
	})
	return found
}

// textSlot is a place in the stream that carries answer text.
type textSlot struct {
	get func() string
	set func(string)
}

// textSlots are the non-empty text fragments: string content and "text"
// parts of array content (thinking parts are left alone).
func (s Stream) textSlots() []textSlot {
	var out []textSlot
	s.deltas(func(_ Chunk, _, d map[string]any) {
		switch c := d["content"].(type) {
		case string:
			if c != "" {
				out = append(out, textSlot{get: func() string { return d["content"].(string) }, set: func(v string) { d["content"] = v }})
			}
		case []any:
			for _, p := range c {
				part, _ := p.(map[string]any)
				if part["type"] == "text" {
					if t, _ := part["text"].(string); t != "" {
						out = append(out, textSlot{get: func() string { return part["text"].(string) }, set: func(v string) { part["text"] = v }})
					}
				}
			}
		}
	})
	return out
}

// AsCall rewrites the stream's tool calls into calls of python: every
// non-empty name becomes "python" and call i's arguments carry codes[i]
// (the last code for calls beyond), cut into as many pieces as the
// recording cut its arguments; an object-valued argument stays an object.
// A stream without calls (a text recording) gets one: its text fragments
// carry the arguments instead, under a call with id, and "stop" becomes
// "tool_calls".
func (s Stream) AsCall(id string, codes ...string) Stream {
	s = s.Clone()
	if !s.HasCalls() {
		return s.textAsCall(id, codes[0])
	}
	type frag struct {
		fn  map[string]any
		has bool // carries an arguments key
	}
	var calls [][]frag
	key := map[string]int{}
	lastID := ""
	s.deltas(func(_ Chunk, _, d map[string]any) {
		tcs, _ := d["tool_calls"].([]any)
		for _, tc := range tcs {
			call, _ := tc.(map[string]any)
			fn, _ := call["function"].(map[string]any)
			if fn == nil {
				continue
			}
			if name, _ := fn["name"].(string); name != "" {
				fn["name"] = "python"
			}
			id, _ := call["id"].(string)
			if id == "" {
				id, _ = fn["id"].(string)
			}
			k := ""
			if ix, ok := call["index"]; ok {
				k = fmt.Sprint(ix)
			} else if id != "" && id != lastID {
				k = "id:" + id
			} else {
				k = fmt.Sprintf("seq:%d", len(calls)-1)
			}
			if id != "" {
				lastID = id
			}
			n, ok := key[k]
			if !ok {
				n = len(calls)
				key[k] = n
				calls = append(calls, nil)
			}
			_, has := fn["arguments"]
			calls[n] = append(calls[n], frag{fn: fn, has: has})
		}
	})
	for i, fr := range calls {
		code := codes[min(i, len(codes)-1)]
		args := argsJSON(code)
		var strs []map[string]any
		object := false
		for _, f := range fr {
			switch v := f.fn["arguments"].(type) {
			case string:
				if v != "" {
					strs = append(strs, f.fn)
				}
			case map[string]any:
				f.fn["arguments"] = map[string]any{"code": code}
				object = true
			}
		}
		if object {
			continue
		}
		if len(strs) == 0 {
			for _, f := range fr {
				if f.has {
					strs = []map[string]any{f.fn}
					break
				}
			}
			if len(strs) == 0 {
				strs = []map[string]any{fr[0].fn}
			}
		}
		for j, piece := range split(args, len(strs)) {
			strs[j]["arguments"] = piece
		}
	}
	return s
}

func (s Stream) textAsCall(id, code string) Stream {
	slots := s.textSlots()
	pieces := split(argsJSON(code), max(len(slots), 1))
	first := true
	addCall := func(d map[string]any, piece string) {
		call := map[string]any{"index": json.Number("0"), "function": map[string]any{"arguments": piece}}
		if first {
			call["id"], call["type"] = id, "function"
			call["function"].(map[string]any)["name"] = "python"
			first = false
		}
		d["tool_calls"] = []any{call}
	}
	k := 0
	s.deltas(func(_ Chunk, choice, d map[string]any) {
		switch c := d["content"].(type) {
		case string:
			if c != "" {
				d["content"] = ""
				addCall(d, pieces[k])
				k++
			}
		case []any:
			var keep []any
			var piece *string
			for _, p := range c {
				part, _ := p.(map[string]any)
				if t, _ := part["text"].(string); part["type"] == "text" && t != "" {
					piece = &pieces[k]
					k++
					continue
				}
				keep = append(keep, p)
			}
			if piece != nil {
				if len(keep) == 0 {
					delete(d, "content")
				} else {
					d["content"] = keep
				}
				addCall(d, *piece)
			}
		}
	})
	s.renameFinish("stop", "tool_calls")
	return s
}

// AsAnswer rewrites the stream into a plain answer of text: its text
// fragments and its tool-call fragments carry the text (tool_calls are
// removed), and "tool_calls" finish reasons become "stop".
func (s Stream) AsAnswer(text string) Stream {
	s = s.Clone()
	var slots []textSlot
	text0 := s.textSlots()
	s.deltas(func(_ Chunk, _, d map[string]any) {
		tcs, ok := d["tool_calls"].([]any)
		if !ok {
			return
		}
		delete(d, "tool_calls")
		for _, tc := range tcs {
			fn, _ := tc.(map[string]any)["function"].(map[string]any)
			if fn == nil {
				continue
			}
			if a, ok := fn["arguments"]; ok && a != "" {
				slots = append(slots, textSlot{get: func() string { s, _ := d["content"].(string); return s }, set: func(v string) {
					prev, _ := d["content"].(string)
					d["content"] = prev + v
				}})
				d["content"] = ""
				break
			}
		}
	})
	slots = append(text0, slots...)
	if len(slots) == 0 {
		// Nothing carried text: the first delta does.
		s.deltas(func(_ Chunk, _, d map[string]any) {
			if len(slots) == 0 {
				slots = append(slots, textSlot{get: func() string { return "" }, set: func(v string) { d["content"] = v }})
			}
		})
	}
	for i, piece := range split(text, len(slots)) {
		slots[i].set(piece)
	}
	s.renameFinish("tool_calls", "stop")
	return s
}

// SetFinish replaces every non-null finish reason (and OpenRouter's
// native_finish_reason) with reason.
func (s Stream) SetFinish(reason string) Stream {
	s = s.Clone()
	for _, c := range s {
		chs, _ := c["choices"].([]any)
		for _, ch := range chs {
			choice, _ := ch.(map[string]any)
			for _, k := range []string{"finish_reason", "native_finish_reason"} {
				if v, ok := choice[k].(string); ok && v != "" {
					choice[k] = reason
				}
			}
		}
	}
	return s
}

func (s Stream) renameFinish(from, to string) {
	for _, c := range s {
		chs, _ := c["choices"].([]any)
		for _, ch := range chs {
			choice, _ := ch.(map[string]any)
			for _, k := range []string{"finish_reason", "native_finish_reason"} {
				if choice[k] == from {
					choice[k] = to
				}
			}
		}
	}
}

func argsJSON(code string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"code": code})
	return strings.TrimRight(b.String(), "\n")
}

// split cuts s into n pieces of about equal length, on character
// boundaries (servers send whole characters in each JSON string).
func split(s string, n int) []string {
	r := []rune(s)
	out := make([]string, n)
	for i := range n {
		out[i] = string(r[i*len(r)/n : (i+1)*len(r)/n])
	}
	return out
}

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
