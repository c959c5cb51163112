package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// ErrorKind sorts failures for front ends (exit codes, hints).
type ErrorKind string

const (
	KindAuth       ErrorKind = "auth"        // 401/403: the key or its rights
	KindModel      ErrorKind = "model"       // unknown model or deployment
	KindContext    ErrorKind = "context"     // the conversation is too long for the model
	KindRateLimit  ErrorKind = "rate_limit"  // 429 that outlasted the retries, or no quota
	KindServer     ErrorKind = "server"      // 5xx, broken streams, network
	KindProtocol   ErrorKind = "protocol"    // the reply is not the API's format (or outgrew its limits)
	KindBadRequest ErrorKind = "bad_request" // other 4xx
	KindSandbox    ErrorKind = "sandbox"     // the kernel broke
	KindStepLimit  ErrorKind = "step_limit"  // the model kept calling tools
	KindConfirm    ErrorKind = "confirm"     // the --confirm prompt failed (the front end went away)
	KindHalted     ErrorKind = "halted"      // the kernel ended the turn (Halt): the message says what to do
)

// Error is a failed turn, in words a person can act on. It never contains
// the API key.
type Error struct {
	Kind    ErrorKind
	Status  int // HTTP status, 0 when there was none
	Message string
}

func (e *Error) Error() string { return e.Message }

// failure is the classification of one failed attempt.
type failure struct {
	status    int
	retryable bool
	why       string // short reason, for retry notices
	err       *Error // the final message when not retried (or out of attempts)
}

// classify decides whether an attempt's error is worth retrying and words it.
func (a *Agent) classify(err error) failure {
	var me *malformedError
	if errors.As(err, &me) {
		msg := "the model server's reply is not the Chat Completions format quarry reads (" + me.err.Error() + ")"
		if head := replyHead(me.reply); head != "" {
			msg += "; it began " + head
		}
		return failure{err: &Error{Kind: KindProtocol, Message: msg}}
	}
	status, msg, code := apiDetails(err)
	msg = a.redact(msg)
	switch {
	case status == 0:
		return a.classifyNetwork(err, msg)
	case status == 429 && (code == "insufficient_quota" || strings.Contains(msg, "quota")):
		return failure{status: 429, err: &Error{Kind: KindRateLimit, Status: 429,
			Message: "the account has no quota left (429): check the plan and billing of this API key"}}
	case status == 429:
		return failure{status: 429, retryable: true, why: "rate limited (429)",
			err: &Error{Kind: KindRateLimit, Status: 429, Message: "the model server is rate limiting requests (429): " + msg}}
	case status == 408 || status >= 500:
		return failure{status: status, retryable: true, why: fmt.Sprintf("server error (%d)", status),
			err: &Error{Kind: KindServer, Status: status, Message: fmt.Sprintf("the model server failed (%d): %s", status, msg)}}
	case status == 401:
		// The body is left out: servers echo (part of) the key in it.
		return failure{status: 401, err: &Error{Kind: KindAuth, Status: 401,
			Message: fmt.Sprintf("the API key was rejected (401): check %s", a.keySource())}}
	case status == 403:
		return failure{status: 403, err: &Error{Kind: KindAuth, Status: 403,
			Message: fmt.Sprintf("access denied (403): the API key may not use model %q or this endpoint: %s", a.cfg.Model, msg)}}
	case status == 404 && (code == "model_not_found" || code == "DeploymentNotFound" || strings.Contains(strings.ToLower(msg), "model") || strings.Contains(msg, "deployment")):
		return failure{status: 404, err: &Error{Kind: KindModel, Status: 404, Message: fmt.Sprintf(
			"the model %q was not found (404): check the model name; the server lists its models at %s/models (or set another with --model)",
			a.cfg.Model, a.baseURL())}}
	case status == 404:
		return failure{status: 404, err: &Error{Kind: KindBadRequest, Status: 404, Message: fmt.Sprintf(
			"the endpoint was not found (404) at %s: check base_url (OpenAI-compatible servers usually end in /v1)", a.baseURL())}}
	case code == "context_length_exceeded" || strings.Contains(msg, "context length") || strings.Contains(msg, "maximum context") || strings.Contains(msg, "too many tokens"):
		return failure{status: status, err: &Error{Kind: KindContext, Status: status, Message: fmt.Sprintf(
			"the conversation is too long for model %q (%d): start a new conversation or lower context_budget", a.cfg.Model, status)}}
	}
	return failure{status: status, err: &Error{Kind: KindBadRequest, Status: status,
		Message: fmt.Sprintf("the model server rejected the request (%d): %s", status, msg)}}
}

func (a *Agent) classifyNetwork(err error, msg string) failure {
	var dnsErr *net.DNSError
	var se *serverError
	var stall *stallError
	switch {
	case errors.As(err, &stall):
		return failure{retryable: true, why: stall.Error(),
			err: &Error{Kind: KindServer, Message: fmt.Sprintf("the model server keeps going silent mid-answer (nothing sent for %s)", stall.duration())}}
	case errors.Is(err, errTruncated):
		return failure{retryable: true, why: "the response stream was cut off",
			err: &Error{Kind: KindServer, Message: "the model server keeps cutting the response off before its end"}}
	case errors.As(err, &se):
		// An error sent inside the stream, without an HTTP status.
		return failure{retryable: se.typ == "server_error" || se.typ == "", why: "the server reported an error mid-stream",
			err: &Error{Kind: KindServer, Message: "the model server failed mid-answer: " + msg}}
	case errors.As(err, &dnsErr):
		return failure{err: &Error{Kind: KindServer, Message: fmt.Sprintf("cannot find the model server %s (%s): check base_url", a.baseURL(), dnsErr.Name)}}
	case errors.Is(err, syscall.ECONNREFUSED):
		return failure{retryable: true, why: "connection refused",
			err: &Error{Kind: KindServer, Message: fmt.Sprintf("cannot connect to the model server at %s (connection refused): is it running?", a.baseURL())}}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return failure{retryable: true, why: "the connection was reset",
			err: &Error{Kind: KindServer, Message: "the connection to the model server keeps breaking: " + msg}}
	case errors.Is(err, errNoData):
		return failure{retryable: true, why: "the stream sent no data",
			err: &Error{Kind: KindServer, Message: "the model server streams no data"}}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return failure{retryable: true, why: "the server did not answer in time",
			err: &Error{Kind: KindServer, Message: fmt.Sprintf("the model server at %s does not answer (timeout)", a.baseURL())}}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = a.redact(ue.Err.Error())
	}
	return failure{err: &Error{Kind: KindServer, Message: "cannot talk to the model server: " + msg}}
}

// replyHead is the start of a server's reply, quoted so that control
// characters show as escapes: enough to tell an HTML page, a proxy's
// message or another API's JSON apart.
func replyHead(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s := strings.ToValidUTF8(string(b[:min(len(b), 240)]), "\uFFFD")
	return fmt.Sprintf("%q", clip(s, 80))
}

// apiDetails digs the HTTP status, message and code out of a server's error.
func apiDetails(err error) (status int, msg, code string) {
	var se *serverError
	if errors.As(err, &se) {
		return se.status, se.message, se.code
	}
	return 0, err.Error(), ""
}

// rejectsTools says whether a 400 is the server refusing the tools field
// (e.g. Ollama's "model does not support tools").
func rejectsTools(err error) bool {
	status, msg, _ := apiDetails(err)
	msg = strings.ToLower(msg)
	return status == 400 && (strings.Contains(msg, "tool") || strings.Contains(msg, "function"))
}

// rejectsStreamOptions says whether a 400 is the server refusing
// stream_options (older Azure API versions and some proxies).
func rejectsStreamOptions(err error) bool {
	status, msg, _ := apiDetails(err)
	return status == 400 && strings.Contains(msg, "stream_options")
}

// redact hides the key, credentials in URLs and key-shaped tokens in a
// server's message, and keeps it short.
func (a *Agent) redact(s string) string {
	return clip(a.mask.MaskError(s), 300)
}

func (a *Agent) keySource() string {
	if a.cfg.KeySource != "" {
		return a.cfg.KeySource
	}
	return "OPENAI_API_KEY"
}

// baseURL is the endpoint for messages, credentials in it hidden.
func (a *Agent) baseURL() string {
	if a.cfg.BaseURL == "" {
		return "https://api.openai.com/v1"
	}
	return strings.TrimRight(a.mask.Mask(a.cfg.BaseURL), "/")
}

func isUserCancel(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }
