package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/quarry-cli/quarry/kernel"
	openai "github.com/sashabaranov/go-openai"
)

// response is one model response, assembled from its stream.
type response struct {
	text   []byte // raw content bytes; joinSurrogates makes them text
	calls  []*wireCall
	finish string
	usage  *openai.Usage
	size   int // bytes of text, tool names and arguments, for maxResponseBytes
}

type wireCall struct {
	id, name string
	args     []byte // raw bytes, decoded once the call is complete
}

// wireChunk is a stream chunk with the string fields kept raw, so that
// fragments split inside UTF-8 sequences or escapes survive (see rawjson.go).
type wireChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *openai.Usage `json:"usage"`
}

// errTruncated is a stream that ended before its end: neither a
// finish_reason nor "data: [DONE]" arrived.
var errTruncated = errors.New("the response stream ended before it was complete")

// attemptError is a failed attempt with the response headers, which carry
// Retry-After (go-openai's errors do not).
type attemptError struct {
	err    error
	header map[string][]string
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// streamOnce makes one streaming request. Text deltas go to emit as they
// arrive, whole UTF-8 characters only.
func (a *Agent) streamOnce(ctx context.Context, req request, emit func(Event)) (*response, error) {
	x := &exchange{idle: a.streamIdle()}
	stream, err := a.client(x).CreateChatCompletionStream(ctx, chatRequest(req, !a.noStreamOptions))
	if err != nil {
		return nil, &attemptError{err: err, header: x.header}
	}
	defer stream.Close()
	resp := &response{}
	shown := 0
	for {
		raw, err := stream.RecvRaw()
		if se := x.stalled(); err != nil && se != nil {
			return resp, se
		}
		if se := x.streamError(); se != nil {
			return resp, &attemptError{err: se, header: x.header}
		}
		if errors.Is(err, io.EOF) {
			if !x.sawDone() && resp.finish == "" {
				return resp, errTruncated
			}
			break
		}
		if err != nil {
			return resp, &attemptError{err: err, header: x.header}
		}
		if err := resp.add(raw); err != nil {
			return resp, err
		}
		if k := completePrefix(resp.text); k > shown {
			emit(Event{Kind: EventText, Text: joinSurrogates(resp.text[shown:k])})
			shown = k
		}
	}
	if shown < len(resp.text) {
		emit(Event{Kind: EventText, Text: joinSurrogates(resp.text[shown:])})
	}
	return resp, nil
}

// add applies one chunk's JSON: text and argument fragments are appended
// as raw bytes, tool-call fragments go to their call.
func (r *response) add(raw []byte) error {
	var c wireChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return &malformedError{err: err}
	}
	if c.Usage != nil {
		r.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		b, err := unquoteRaw(ch.Delta.Content)
		if err != nil {
			return &malformedError{err: err}
		}
		if err := r.grow(len(b)); err != nil {
			return err
		}
		r.text = append(r.text, b...)
		for _, tc := range ch.Delta.ToolCalls {
			call, err := r.callFor(tc.Index, tc.ID)
			if err != nil {
				return err
			}
			if tc.ID != "" {
				call.id = tc.ID
			}
			b, err := unquoteRaw(tc.Function.Arguments)
			if err != nil {
				return &malformedError{err: err}
			}
			if err := r.grow(len(tc.Function.Name) + len(b)); err != nil {
				return err
			}
			call.name += tc.Function.Name
			call.args = append(call.args, b...)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			r.finish = *ch.FinishReason
		}
	}
	return nil
}

// callFor finds the call a fragment belongs to: by index when the server
// sends one, else a new id starts a call and fragments without one continue
// the last. The index is the server's number: it is checked before use.
func (r *response) callFor(index *int, id string) (*wireCall, error) {
	if index != nil {
		if *index < 0 || *index >= maxToolCalls {
			return nil, &malformedError{err: fmt.Errorf("tool call index %d is outside 0..%d", *index, maxToolCalls-1)}
		}
		for len(r.calls) <= *index {
			r.calls = append(r.calls, &wireCall{})
		}
		return r.calls[*index], nil
	}
	if len(r.calls) == 0 || (id != "" && r.calls[len(r.calls)-1].id != "" && r.calls[len(r.calls)-1].id != id) {
		if len(r.calls) >= maxToolCalls {
			return nil, &malformedError{err: fmt.Errorf("more than %d tool calls in one response", maxToolCalls)}
		}
		r.calls = append(r.calls, &wireCall{})
	}
	return r.calls[len(r.calls)-1], nil
}

// grow counts n more bytes of the response against maxResponseBytes.
func (r *response) grow(n int) error {
	r.size += n
	if r.size > maxResponseBytes {
		return &malformedError{err: fmt.Errorf("the response is larger than %s", kernel.FormatSize(maxResponseBytes))}
	}
	return nil
}

// malformedError is a chunk that is not the JSON the API documents.
type malformedError struct{ err error }

func (e *malformedError) Error() string { return "malformed stream chunk: " + e.err.Error() }

// Limits on what a model server may send. It is untrusted: beyond them the
// response is refused instead of held in memory.
const (
	maxToolCalls     = 64       // parallel calls in one response
	maxResponseBytes = 4 << 20  // text, tool names and arguments of one response
	maxStreamLine    = 8 << 20  // one SSE line (a chunk's JSON)
	maxStreamExtra   = 4 << 20  // comments and other non-data lines, in total: go-openai keeps them all
	maxErrorBody     = 64 << 10 // an error response's body
)
