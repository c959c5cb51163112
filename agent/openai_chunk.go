package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The Chat Completions chunk as the servers that speak it really send it,
// read with the string fields kept raw so that fragments split inside
// UTF-8 sequences or escapes survive (see rawjson.go). These are quarry's
// own types, not go-openai's, because the servers differ: content may be
// an array of parts (Mistral), reasoning comes as reasoning_content,
// reasoning or thinking parts, arguments may be an object (MiniMax, some
// llama.cpp builds), names and ids may repeat or be empty in later
// fragments, the index may be missing, and finish reasons are spelled
// several ways. docs/configuration.md lists the servers replayed.

type chatChunk struct {
	Choices []chatChoice    `json:"choices"`
	Usage   json.RawMessage `json:"usage"`
}

type chatChoice struct {
	Index        int             `json:"index"`
	Delta        *chatDelta      `json:"delta"`
	Message      *chatDelta      `json:"message"` // a whole, non-streamed completion
	FinishReason json.RawMessage `json:"finish_reason"`
}

type chatDelta struct {
	Content          json.RawMessage `json:"content"`
	Refusal          json.RawMessage `json:"refusal"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []chatToolCall  `json:"tool_calls"`
}

type chatToolCall struct {
	Index    *int            `json:"index"`
	ID       json.RawMessage `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		ID        json.RawMessage `json:"id"` // llama-server before b5500 put it here
	} `json:"function"`
	// ExtraContent is Gemini's: the thought signature that must come back
	// with the call.
	ExtraContent json.RawMessage `json:"extra_content"`
}

// addChunk applies one streamed chunk.
func (r *response) addChunk(raw []byte) error {
	var c chatChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return &malformedError{err: err, reply: raw}
	}
	r.addUsage(c.Usage)
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if d == nil {
			d = ch.Message
		}
		if d != nil {
			if err := r.addDelta(d); err != nil {
				var me *malformedError
				if errors.As(err, &me) && me.reply == nil {
					me.reply = raw // the message names the chunk
				}
				return err
			}
		}
		if f := finishReason(ch.FinishReason); f != "" {
			r.finish = f
		}
	}
	return nil
}

func (r *response) addDelta(d *chatDelta) error {
	text, thinking, err := contentText(d.Content)
	if err != nil {
		return &malformedError{err: fmt.Errorf("content: %w", err)}
	}
	refusal, err := unquoteRaw(d.Refusal)
	if err != nil {
		return &malformedError{err: fmt.Errorf("refusal: %w", err)}
	}
	reasoning := stringField(d.ReasoningContent)
	if reasoning == nil {
		reasoning = stringField(d.Reasoning)
	}
	if err := r.addReasoning(append(reasoning, thinking...)); err != nil {
		return err
	}
	if err := r.addText(append(text, refusal...)); err != nil {
		return err
	}
	for _, tc := range d.ToolCalls {
		p := callPart{index: tc.Index, id: idString(tc.ID), name: strings.TrimSpace(tc.Function.Name)}
		if p.id == "" {
			p.id = idString(tc.Function.ID)
		}
		if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
			p.extra = append(json.RawMessage(nil), tc.ExtraContent...)
		}
		args := bytes.TrimSpace(tc.Function.Arguments)
		switch {
		case len(args) == 0 || string(args) == "null":
		case args[0] == '"':
			if p.args, err = unquoteRaw(args); err != nil {
				return &malformedError{err: fmt.Errorf("tool call arguments: %w", err)}
			}
		case args[0] == '{':
			// The whole arguments as an object rather than JSON text.
			p.args, p.whole = append([]byte(nil), args...), true
		default:
			return &malformedError{err: errors.New("tool call arguments are neither JSON text nor an object")}
		}
		if err := r.addCall(p); err != nil {
			return err
		}
	}
	return nil
}

// contentText reads content: a string, or an array of parts (text,
// thinking, refusal) as Mistral sends; other part types are skipped.
func contentText(raw json.RawMessage) (text, thinking []byte, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	switch raw[0] {
	case '"':
		text, err = unquoteRaw(raw)
		return text, nil, err
	case '{':
		raw = append(append([]byte{'['}, raw...), ']')
	case '[':
	default:
		return nil, nil, errors.New("neither text nor a list of parts")
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     json.RawMessage `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
		Refusal  json.RawMessage `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, nil, err
	}
	for _, p := range parts {
		switch p.Type {
		case "text", "output_text":
			b, err := unquoteRaw(p.Text)
			if err != nil {
				return nil, nil, err
			}
			text = append(text, b...)
		case "refusal":
			b, err := unquoteRaw(p.Refusal)
			if err != nil {
				return nil, nil, err
			}
			text = append(text, b...)
		case "thinking", "reasoning":
			src := p.Thinking
			if len(src) == 0 {
				src = p.Text
			}
			// Mistral nests the thinking as parts of its own.
			t, inner, err := contentText(src)
			if err != nil {
				return nil, nil, err
			}
			thinking = append(append(thinking, t...), inner...)
		}
	}
	return text, thinking, nil
}

// stringField is a JSON string's raw bytes, nil for anything else: an
// unexpected reasoning field is not worth failing the answer for.
func stringField(raw json.RawMessage) []byte {
	b, err := unquoteRaw(raw)
	if err != nil {
		return nil
	}
	return b
}

// idString reads an id sent as a string or, by some servers, a number.
func idString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// finishReason normalises the spellings servers use: OpenAI's names, plus
// Anthropic's and Gemini's through gateways, in any case.
func finishReason(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "tool_use", "function_call", "tool_call", "tools":
		return "tool_calls"
	case "end_turn", "eos", "stop_sequence", "eos_token", "end":
		return "stop"
	case "max_tokens", "max_output_tokens", "model_length":
		return "length"
	case "safety", "recitation", "blocklist", "prohibited_content":
		return "content_filter"
	}
	return s
}

// addUsage reads a usage object leniently (an odd one must not fail the
// answer). Servers that send usage in every chunk (MiniMax) send zeros
// first: a later non-zero report wins.
func (r *response) addUsage(raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var u struct {
		Prompt     json.RawMessage `json:"prompt_tokens"`
		Completion json.RawMessage `json:"completion_tokens"`
		Total      json.RawMessage `json:"total_tokens"`
		Details    struct {
			Reasoning json.RawMessage `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return
	}
	got := tokenUsage{prompt: count(u.Prompt), completion: count(u.Completion), reasoning: count(u.Details.Reasoning)}
	// xAI leaves reasoning out of completion_tokens (the total shows it);
	// it is output the model produced and is billed as such.
	if total := count(u.Total); got.reasoning > 0 && total == got.prompt+got.completion+got.reasoning {
		got.completion += got.reasoning
	}
	if r.usage == nil || got.prompt+got.completion > 0 {
		r.usage = &got
	}
}

func count(raw json.RawMessage) int {
	f, err := strconv.ParseFloat(strings.Trim(string(bytes.TrimSpace(raw)), `"`), 64)
	if err != nil || f < 0 || f > 1e12 {
		return 0
	}
	return int(f)
}

// addCompletion reads a whole reply body: a chat.completion object (a
// request without streaming, or a proxy that stripped the stream), or
// chunks, with or without their "data:" framing, from a server that
// streams although it was not asked to or a proxy that removed the framing.
func (r *response) addCompletion(body []byte) error {
	body = bytes.TrimSpace(body)
	if bytes.HasPrefix(body, []byte("{")) && json.Valid(body) {
		if se := streamErrorOf(body); se != nil {
			return se
		}
		if err := r.addChunk(body); err != nil {
			return err
		}
		if r.finish == "" {
			r.finish = "stop" // a whole reply is complete by definition
		}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, maxStreamLine)
	chunks := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if payload, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			line = bytes.TrimSpace(payload)
		}
		if !bytes.HasPrefix(line, []byte("{")) {
			continue // comments, [DONE], event: lines
		}
		chunks++
		if se := streamErrorOf(line); se != nil {
			return se
		}
		if err := r.addChunk(line); err != nil {
			return err
		}
	}
	if chunks == 0 {
		return &malformedError{err: errors.New("the reply is neither a chat completion nor an event stream"), reply: body}
	}
	return nil
}
