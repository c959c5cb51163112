package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	openai "github.com/sashabaranov/go-openai"
)

// response is one model response, assembled from its stream.
type response struct {
	text   []byte // raw content bytes; joinSurrogates makes them text
	calls  []*wireCall
	finish string
	usage  *openai.Usage
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
func (a *Agent) streamOnce(ctx context.Context, req openai.ChatCompletionRequest, emit func(Event)) (*response, error) {
	x := &exchange{}
	stream, err := a.client(x).CreateChatCompletionStream(ctx, req)
	if err != nil {
		return nil, &attemptError{err: err, header: x.header}
	}
	defer stream.Close()
	resp := &response{}
	shown := 0
	for {
		raw, err := stream.RecvRaw()
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
		var c wireChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return resp, &malformedError{err: err}
		}
		if c.Usage != nil {
			resp.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if b, err := unquoteRaw(ch.Delta.Content); err != nil {
				return resp, &malformedError{err: err}
			} else if len(b) > 0 {
				resp.text = append(resp.text, b...)
				if k := completePrefix(resp.text); k > shown {
					emit(Event{Kind: EventText, Text: joinSurrogates(resp.text[shown:k])})
					shown = k
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				call := resp.callFor(tc.Index, tc.ID)
				if tc.ID != "" {
					call.id = tc.ID
				}
				if tc.Function.Name != "" {
					call.name += tc.Function.Name
				}
				b, err := unquoteRaw(tc.Function.Arguments)
				if err != nil {
					return resp, &malformedError{err: err}
				}
				call.args = append(call.args, b...)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				resp.finish = *ch.FinishReason
			}
		}
	}
	if shown < len(resp.text) {
		emit(Event{Kind: EventText, Text: joinSurrogates(resp.text[shown:])})
	}
	return resp, nil
}

// callFor finds the call a fragment belongs to: by index when the server
// sends one, else a new id starts a call and fragments without one continue
// the last.
func (r *response) callFor(index *int, id string) *wireCall {
	if index != nil {
		for len(r.calls) <= *index {
			r.calls = append(r.calls, &wireCall{})
		}
		return r.calls[*index]
	}
	if len(r.calls) == 0 || (id != "" && r.calls[len(r.calls)-1].id != "" && r.calls[len(r.calls)-1].id != id) {
		r.calls = append(r.calls, &wireCall{})
	}
	return r.calls[len(r.calls)-1]
}

// malformedError is a chunk that is not the JSON the API documents.
type malformedError struct{ err error }

func (e *malformedError) Error() string { return "malformed stream chunk: " + e.err.Error() }
