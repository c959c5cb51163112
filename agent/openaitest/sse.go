package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// writeStream answers a streaming request in the wire format of the OpenAI
// API: data chunks sharing one id, a ": ping" comment, the final
// finish_reason, the usage chunk with "choices":[] and "data: [DONE]".
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunks := buildChunks(req, reply)
	for i, c := range chunks {
		if reply.Delay > 0 && i > 0 && !s.sleep(r, reply.Delay) {
			return
		}
		if reply.DropAfter > 0 && i == reply.DropAfter {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
				}
			}
			return
		}
		if reply.StallAfter > 0 && i == reply.StallAfter {
			select {
			case <-r.Context().Done():
			case <-s.closing:
			}
			return
		}
		if reply.TruncateAfter > 0 && i == reply.TruncateAfter {
			return
		}
		if reply.ErrorAfter > 0 && i == reply.ErrorAfter {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": reply.ErrMessage, "type": reply.ErrType, "param": nil, "code": nil}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			flush()
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", c)
		if i == 0 {
			// SSE comment, as OpenRouter and others send to keep the line alive.
			fmt.Fprint(w, ": ping\n\n")
		}
		flush()
		if i == 0 && reply.Hang {
			select {
			case <-r.Context().Done():
			case <-s.closing:
			}
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush()
}

func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

func buildChunks(req Request, reply Reply) []string {
	id, _ := json.Marshal(fmt.Sprintf("chatcmpl-fake-%d", req.N))
	model, _ := json.Marshal(req.Chat.Model)
	head := fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,"system_fingerprint":"fp_fake",`,
		id, time.Now().Unix(), model)
	choice := func(delta, finish string) string {
		return head + `"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	out := []string{choice(`{"role":"assistant","content":"","refusal":null}`, "null")}
	for _, piece := range pieces(reply.Text, reply.chunkSize(), reply.EscapeUnicode) {
		out = append(out, choice(`{"content":"`+piece+`"}`, "null"))
	}
	for i, tc := range reply.ToolCalls {
		tc = tc.withDefaults(i)
		callID, _ := json.Marshal(tc.ID)
		name, _ := json.Marshal(tc.Name)
		out = append(out, choice(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":""}}]}`,
			i, callID, name), "null"))
		for _, piece := range pieces(tc.Arguments, reply.chunkSize(), reply.EscapeUnicode) {
			out = append(out, choice(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"%s"}}]}`, i, piece), "null"))
		}
	}
	finish, _ := json.Marshal(reply.finishReason())
	out = append(out, choice(`{}`, string(finish)))
	if req.Chat.StreamOptions != nil && req.Chat.StreamOptions.IncludeUsage && !reply.NoUsage {
		p, c := usage(req, reply)
		out = append(out, head+fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, p, c, p+c))
	}
	return out
}

// pieces splits s into JSON string bodies of n units each. A unit is one
// byte (so pieces may split UTF-8 sequences, left raw on the wire) or, with
// escapeUnicode, one \uXXXX UTF-16 escape (so surrogate pairs may split).
func pieces(s string, n int, escapeUnicode bool) []string {
	var units []string
	if escapeUnicode {
		for _, r := range s {
			if r < utf8.RuneSelf {
				units = append(units, escapeByte(byte(r)))
				continue
			}
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				units = append(units, fmt.Sprintf(`\u%04x`, r1), fmt.Sprintf(`\u%04x`, r2))
				continue
			}
			units = append(units, fmt.Sprintf(`\u%04x`, r))
		}
	} else {
		for i := 0; i < len(s); i++ {
			units = append(units, escapeByte(s[i]))
		}
	}
	var out []string
	for len(units) > 0 {
		k := min(n, len(units))
		out = append(out, strings.Join(units[:k], ""))
		units = units[k:]
	}
	return out
}

func escapeByte(b byte) string {
	switch b {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if b < 0x20 {
		return fmt.Sprintf(`\u%04x`, b)
	}
	return string([]byte{b})
}
