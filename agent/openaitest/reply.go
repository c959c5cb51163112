package openaitest

import (
	"encoding/json"
	"fmt"
	"time"
)

// Reply is one scripted answer of the fake server. Build it with Text,
// ToolCalls, Call, Error, RateLimited, Drop, Truncate, Stall, Raw or Hang,
// then adjust the fields if needed.
type Reply struct {
	// Text is the assistant content, streamed in pieces of ChunkSize bytes
	// (pieces may split a UTF-8 sequence, as byte-level tokenizers do).
	Text string
	// ToolCalls are streamed after Text; several make parallel calls at
	// index 0, 1, 2, ….
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when ToolCalls is set, else "stop".
	FinishReason string
	// ChunkSize is the bytes per content or arguments fragment; 0 means 7.
	ChunkSize int
	// EscapeUnicode writes non-ASCII as \uXXXX escapes, so an emoji's
	// surrogate pair can be split across two fragments.
	EscapeUnicode bool
	// PromptTokens and CompletionTokens override the reported usage (zero
	// means an estimate of about 4 characters per token).
	PromptTokens, CompletionTokens int
	// NoUsage leaves out the usage chunk even when the client asks for it.
	NoUsage bool

	// Status, when non-zero, answers with this HTTP status and a JSON
	// error body {"error":{"message","type","code"}} instead of a stream.
	Status     int
	ErrMessage string
	ErrType    string
	ErrCode    string
	// RetryAfter sets the Retry-After header (whole seconds, rounded up)
	// and retry-after-ms.
	RetryAfter time.Duration
	// RawBody, when set with Status, is sent as is (e.g. an HTML 502 page).
	RawBody string

	// DropAfter > 0 closes the connection abruptly after that many data
	// chunks (no [DONE], no final zero-length chunk of the HTTP body).
	DropAfter int
	// TruncateAfter > 0 ends the response cleanly after that many data
	// chunks, without finish_reason and without [DONE].
	TruncateAfter int
	// ErrorAfter > 0 sends, after that many data chunks, an error inside
	// the stream (data: {"error":{…}} with ErrMessage and ErrType, as
	// OpenAI does when a request fails mid-answer) and ends the response.
	ErrorAfter int
	// StallAfter > 0 sends that many data chunks (and the ": ping" after
	// the first) then sends nothing more, connection open, until the client
	// goes away or the server closes: a server stuck mid-answer.
	StallAfter int
	// Hang sends the first chunk then waits until the client goes away or
	// the server closes.
	Hang bool
	// Delay waits before each data chunk (to let a test cancel mid-stream).
	Delay time.Duration

	// RawStream, when set, is the whole body of a 200 text/event-stream
	// answer, sent as is: for hostile or malformed streams.
	RawStream string
	// RawWrites is RawStream in pieces, each written and flushed in turn
	// (a replayed recording, see Frame).
	RawWrites []string
}

// ToolCall is one function call in a Reply.
type ToolCall struct {
	ID        string // "call_<n>" when empty
	Name      string // "python" when empty
	Arguments string // raw JSON text, sent split at awkward byte positions
}

// Text is a plain assistant answer.
func Text(s string) Reply { return Reply{Text: s} }

// ToolCalls is a reply calling the python tool once per code, in order.
func ToolCalls(code ...string) Reply {
	r := Reply{}
	for _, c := range code {
		r.ToolCalls = append(r.ToolCalls, PythonCall(c))
	}
	return r
}

// PythonCall is a call of the python tool with {"code": code}.
func PythonCall(code string) ToolCall {
	b, _ := json.Marshal(map[string]string{"code": code})
	return ToolCall{Name: "python", Arguments: string(b)}
}

// Call is a reply with text before one or more tool calls.
func Call(text string, calls ...ToolCall) Reply {
	return Reply{Text: text, ToolCalls: calls}
}

// Error answers with an HTTP error status and an OpenAI-style JSON body.
func Error(status int, message string) Reply {
	typ := "invalid_request_error"
	switch {
	case status == 401:
		typ = "authentication_error"
	case status == 429:
		typ = "rate_limit_error"
	case status >= 500:
		typ = "server_error"
	}
	return Reply{Status: status, ErrMessage: message, ErrType: typ}
}

// ErrorCode is Error with an error code such as "model_not_found" or
// "context_length_exceeded".
func ErrorCode(status int, code, message string) Reply {
	r := Error(status, message)
	r.ErrCode = code
	return r
}

// RateLimited is a 429 with Retry-After.
func RateLimited(after time.Duration) Reply {
	r := Error(429, "Rate limit reached for requests. Please try again later.")
	r.ErrCode = "rate_limit_exceeded"
	r.RetryAfter = after
	return r
}

// Drop is r cut off by a closed connection after n data chunks.
func Drop(r Reply, n int) Reply {
	r.DropAfter = n
	return r
}

// Truncate is r ending cleanly after n data chunks but before [DONE].
func Truncate(r Reply, n int) Reply {
	r.TruncateAfter = n
	return r
}

// StreamError is r failing after n data chunks with an error sent inside
// the stream.
func StreamError(r Reply, n int, typ, message string) Reply {
	r.ErrorAfter, r.ErrType, r.ErrMessage = n, typ, message
	return r
}

// Stall is r going silent, connection open, after n data chunks.
func Stall(r Reply, n int) Reply {
	r.StallAfter = n
	return r
}

// Raw answers 200 text/event-stream with body as is.
func Raw(body string) Reply { return Reply{RawStream: body} }

// Hang starts a stream and never finishes it.
func Hang() Reply { return Reply{Hang: true} }

func (r Reply) finishReason() string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) chunkSize() int {
	if r.ChunkSize > 0 {
		return r.ChunkSize
	}
	return 7
}

func (tc ToolCall) withDefaults(n int) ToolCall {
	if tc.ID == "" {
		tc.ID = fmt.Sprintf("call_%d", n)
	}
	if tc.Name == "" {
		tc.Name = "python"
	}
	return tc
}
