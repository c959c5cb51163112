package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// openaiWire speaks OpenAI's Chat Completions (and the many servers that
// copy it) through go-openai's client. It remembers what a server taught
// it during the session: that it refuses stream_options, that it cannot
// stream, that it wants the reasoning of tool-call steps back.
type openaiWire struct {
	baseURL, apiKey, azureVersion string
	http                          *http.Client // nil means defaultHTTPClient
	idle                          time.Duration

	noStreamOptions bool // the server rejected stream_options once
	noStream        bool // whole answers only (the stream setting, or a refusal)
	// sendReasoning returns the reasoning of assistant messages that made
	// tool calls (as reasoning_content): DeepSeek's and Moonshot's thinking
	// modes reject a conversation without it; most servers ignore or
	// refuse the field, so it is off until a server asks.
	sendReasoning bool
}

func newOpenAIWire(cfg Config, idle time.Duration) *openaiWire {
	w := &openaiWire{baseURL: cfg.BaseURL, apiKey: cfg.APIKey, azureVersion: cfg.AzureAPIVersion,
		http: cfg.HTTPClient, idle: idle, noStream: cfg.NoStream}
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		switch h := strings.ToLower(u.Hostname()); {
		case h == "api.deepseek.com", strings.HasSuffix(h, ".moonshot.ai"), strings.HasSuffix(h, ".moonshot.cn"):
			w.sendReasoning = true
		}
	}
	return w
}

func (w *openaiWire) open(ctx context.Context, req request, warn func(string)) (stream, error) {
	for {
		x := &exchange{idle: w.idle, patch: extrasPatch(req.messages)}
		var s stream
		var err error
		if w.noStream {
			s, err = w.whole(ctx, x, req)
		} else {
			var cs *openai.ChatCompletionStream
			cs, err = w.client(x).CreateChatCompletionStream(ctx, chatRequest(req, !w.noStreamOptions, w.sendReasoning))
			if err == nil {
				s = &chatStream{x: x, s: cs, resp: &response{}}
			}
		}
		if err == nil {
			return s, nil
		}
		err = &attemptError{err: sdkError(err), header: x.header}
		switch {
		case rejectsStreamOptions(err) && !w.noStreamOptions:
			w.noStreamOptions = true
		case !w.noStream && rejectsStreaming(err):
			w.noStream = true
			_, msg, _ := apiDetails(err)
			warn(fmt.Sprintf("the model server does not stream answers (%s); quarry waits for each whole answer for this session (stream = false skips the attempt)", clip(msg, 120)))
		case !w.sendReasoning && wantsReasoning(err):
			w.sendReasoning = true
		default:
			return nil, err
		}
	}
}

// whole makes a request without streaming; the reply comes as one piece.
// The body is read by quarry (addCompletion), not by go-openai, whose
// types cannot hold content parts.
func (w *openaiWire) whole(ctx context.Context, x *exchange, req request) (stream, error) {
	x.whole = true
	cr := chatRequest(req, false, w.sendReasoning)
	cr.Stream = false
	_, err := w.client(x).CreateChatCompletion(ctx, cr)
	if x.raw == nil {
		if err == nil {
			err = errors.New("the model server sent no answer")
		}
		return nil, err
	}
	resp := &response{}
	if err := resp.addCompletion(x.raw); err != nil {
		return nil, err
	}
	return &wholeStream{resp: resp}, nil
}

// client builds a go-openai client whose HTTP traffic goes through x.
func (w *openaiWire) client(x *exchange) *openai.Client {
	var cc openai.ClientConfig
	if w.azureVersion != "" {
		cc = openai.DefaultAzureConfig(w.apiKey, w.baseURL)
		cc.APIVersion = w.azureVersion
		// The deployment name is used as given, not rewritten the
		// go-openai way (which strips "." from 3.5 model names).
		cc.AzureModelMapperFunc = func(m string) string { return m }
	} else {
		cc = openai.DefaultConfig(w.apiKey)
		if w.baseURL != "" {
			cc.BaseURL = w.baseURL
		}
	}
	x.base = w.http
	if x.base == nil {
		x.base = defaultHTTPClient
		if x.whole {
			x.base = wholeHTTPClient
		}
	}
	cc.HTTPClient = x
	return openai.NewClientWithConfig(cc)
}

// chatStream iterates over the chunks of one streamed reply.
type chatStream struct {
	x      *exchange
	s      *openai.ChatCompletionStream
	resp   *response
	chunks int
	cur    delta
	err    error
	end    bool
}

func (c *chatStream) Next() bool {
	for !c.end {
		raw, err := c.s.RecvRaw()
		if se := c.x.stalled(); err != nil && se != nil {
			return c.stop(se)
		}
		if se := c.x.streamError(); se != nil {
			return c.stop(&attemptError{err: se, header: c.x.header})
		}
		if c.chunks == 0 && (errors.Is(err, io.EOF) || errors.Is(err, openai.ErrTooManyEmptyStreamMessages)) {
			if body := c.x.notStreamed(); body != nil {
				// A proxy that strips the stream (a whole reply, or
				// chunks without their "data:" framing).
				c.end = true
				if err := c.resp.addCompletion(body); err != nil {
					return c.stop(err)
				}
				c.cur = c.resp.pending(true)
				return !c.cur.empty()
			}
		}
		if errors.Is(err, io.EOF) {
			c.end = true
			if !c.x.sawDone() && c.resp.finish == "" {
				c.err = errTruncated
				return false
			}
			c.cur = c.resp.pending(true)
			return !c.cur.empty()
		}
		if err != nil {
			return c.stop(&attemptError{err: sdkError(err), header: c.x.header})
		}
		c.chunks++
		if err := c.resp.addChunk(raw); err != nil {
			return c.stop(err)
		}
		if d := c.resp.pending(false); !d.empty() {
			c.cur = d
			return true
		}
	}
	return false
}

func (c *chatStream) stop(err error) bool {
	c.end, c.err = true, err
	return false
}

func (c *chatStream) Current() delta      { return c.cur }
func (c *chatStream) Err() error          { return c.err }
func (c *chatStream) Response() *response { return c.resp }
func (c *chatStream) Close() error        { return c.s.Close() }

// wholeStream is a reply that came in one piece: one delta, then the end.
type wholeStream struct {
	resp *response
	done bool
	cur  delta
}

func (s *wholeStream) Next() bool {
	if s.done {
		return false
	}
	s.done = true
	s.cur = s.resp.pending(true)
	return !s.cur.empty()
}

func (s *wholeStream) Current() delta      { return s.cur }
func (s *wholeStream) Err() error          { return nil }
func (s *wholeStream) Response() *response { return s.resp }
func (s *wholeStream) Close() error        { return nil }

// rejectsStreaming says whether an error is the server refusing to
// stream: a gateway's "streaming is not supported", llama-server's older
// "Cannot use tools with stream".
func rejectsStreaming(err error) bool {
	status, msg, _ := apiDetails(err)
	msg = strings.ToLower(msg)
	switch status {
	case 400, 415, 422, 500, 501:
	default:
		return false
	}
	return strings.Contains(msg, "stream") && !strings.Contains(msg, "stream_options") &&
		(strings.Contains(msg, "not supported") || strings.Contains(msg, "unsupported") || strings.Contains(msg, "cannot") ||
			strings.Contains(msg, "not allowed") || strings.Contains(msg, "not permitted") || strings.Contains(msg, "disabled"))
}

// wantsReasoning says whether a 400 is the server missing the reasoning of
// earlier steps (DeepSeek: "Missing `reasoning_content` field in the
// assistant message").
func wantsReasoning(err error) bool {
	status, msg, _ := apiDetails(err)
	msg = strings.ToLower(msg)
	return status == 400 && strings.Contains(msg, "reasoning_content") &&
		(strings.Contains(msg, "missing") || strings.Contains(msg, "required") || strings.Contains(msg, "must"))
}
