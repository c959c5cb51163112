package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Rewriting a recorded stream: its call made a python call of the test's
// code (AsCall), or its text the test's answer (AsAnswer), the rest kept.

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
