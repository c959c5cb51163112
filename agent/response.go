package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// wire is a model server's protocol: it sends one request and returns the
// reply as a stream. openai_stream.go implements Chat Completions; warn
// reports what the wire had to adapt to (a server that cannot stream).
type wire interface {
	open(ctx context.Context, req request, warn func(string)) (stream, error)
}

// stream is one reply as it arrives, in the shape of charmbracelet/mods'
// streams: Next advances to the next piece to show (false at the end or
// on failure), Current is that piece, Err the failure, and Response the
// reply assembled so far (whole once Next returned false with Err nil).
type stream interface {
	Next() bool
	Current() delta
	Err() error
	Response() *response
	Close() error
}

// delta is text to show now: whole UTF-8 characters only.
type delta struct{ text, reasoning string }

func (d delta) empty() bool { return d.text == "" && d.reasoning == "" }

// streamOnce makes one request and reports its text as it arrives.
func (a *Agent) streamOnce(ctx context.Context, req request, emit func(Event)) (*response, error) {
	s, err := a.wire.open(ctx, req, func(msg string) { emit(Event{Kind: EventWarning, Text: msg}) })
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for s.Next() {
		d := s.Current()
		if d.reasoning != "" {
			emit(Event{Kind: EventReasoning, Text: d.reasoning})
		}
		if d.text != "" {
			emit(Event{Kind: EventText, Text: d.text})
		}
	}
	return s.Response(), s.Err()
}

// response is one model response, assembled from its fragments by a wire
// format. Text is kept as raw bytes until it is whole (see rawjson.go).
type response struct {
	text      []byte
	reasoning []byte
	calls     []*wireCall
	finish    string
	usage     *tokenUsage
	size      int // bytes of text, reasoning, tool names and arguments, for maxResponseBytes

	shownText, shownReasoning int // bytes already handed out by pending
}

// tokenUsage is what the server reported for one response; reasoning is
// part of completion.
type tokenUsage struct {
	prompt, completion, reasoning int
}

// wireCall is a tool call as it is assembled.
type wireCall struct {
	id, name string
	args     []byte // raw bytes, decoded once the call is complete
	extra    json.RawMessage
}

// callPart is one fragment of a tool call, as a wire format read it.
type callPart struct {
	index    *int // the server's number for the call; nil when it sends none
	id, name string
	args     []byte // a piece of the arguments' JSON text
	whole    bool   // args is all of the arguments (sent as an object)
	extra    json.RawMessage
}

func (r *response) addText(b []byte) error {
	if err := r.grow(len(b)); err != nil {
		return err
	}
	r.text = append(r.text, b...)
	return nil
}

func (r *response) addReasoning(b []byte) error {
	if err := r.grow(len(b)); err != nil {
		return err
	}
	r.reasoning = append(r.reasoning, b...)
	return nil
}

// addCall applies one fragment to its call.
func (r *response) addCall(p callPart) error {
	call, err := r.callFor(p.index, p.id)
	if err != nil {
		return err
	}
	if err := r.grow(len(p.name) + len(p.args) + len(p.extra)); err != nil {
		return err
	}
	if p.id != "" {
		call.id = p.id
	}
	call.name = mergeName(call.name, p.name)
	if p.whole {
		call.args = p.args
	} else {
		call.args = append(call.args, p.args...)
	}
	if p.extra != nil {
		call.extra = p.extra
	}
	return nil
}

// mergeName adds a fragment's name to a call's. OpenAI sends the name
// once, whole; some servers repeat it in every fragment (llama-server
// before b5500, some vLLM and NIM parsers) or send it growing: a fragment
// the name already starts with is a repeat, one that starts with the name
// replaces it, anything else continues it.
func mergeName(name, part string) string {
	switch {
	case part == "" || strings.HasPrefix(name, part):
		return name
	case strings.HasPrefix(part, name):
		return part
	}
	return name + part
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

// pending is the text not handed out yet: whole characters only, or
// everything when the response is complete.
func (r *response) pending(complete bool) delta {
	cut := func(b []byte, shown *int) string {
		k := len(b)
		if !complete {
			k = completePrefix(b)
		}
		if k <= *shown {
			return ""
		}
		s := joinSurrogates(b[*shown:k])
		*shown = k
		return s
	}
	return delta{text: cut(r.text, &r.shownText), reasoning: cut(r.reasoning, &r.shownReasoning)}
}

// malformedError is a reply that is not the JSON the API documents; reply
// is the server's bytes that broke it, for the message (see replyHead).
type malformedError struct {
	err   error
	reply []byte
}

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

// errTruncated is a stream that ended before its end: neither a
// finish_reason nor "data: [DONE]" arrived.
var errTruncated = errorString("the response stream ended before it was complete")

// errNoData is a stream that sends only lines that are not data.
var errNoData = errorString("the stream sent no data")

type errorString string

func (e errorString) Error() string { return string(e) }

// serverError is an error the model server reported: an HTTP status with
// its message, or (status 0) an error sent inside the stream.
type serverError struct {
	status             int
	message, code, typ string
}

func (e *serverError) Error() string {
	if e.status == 0 {
		return e.message
	}
	return fmt.Sprintf("error, status code: %d, message: %s", e.status, e.message)
}

// attemptError is a failed attempt with the response headers, which carry
// Retry-After.
type attemptError struct {
	err    error
	header map[string][]string
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }
