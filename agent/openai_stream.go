package agent

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// openaiWire speaks OpenAI's Chat Completions (and the many servers that
// copy it) through go-openai's client. It remembers what a server taught
// it during the session: that it refuses stream_options.
type openaiWire struct {
	baseURL, apiKey, azureVersion string
	http                          *http.Client // nil means defaultHTTPClient
	idle                          time.Duration

	noStreamOptions bool // the server rejected stream_options once
}

func newOpenAIWire(cfg Config, idle time.Duration) *openaiWire {
	return &openaiWire{baseURL: cfg.BaseURL, apiKey: cfg.APIKey, azureVersion: cfg.AzureAPIVersion, http: cfg.HTTPClient, idle: idle}
}

func (w *openaiWire) open(ctx context.Context, req request, warn func(string)) (stream, error) {
	for {
		x := &exchange{idle: w.idle}
		s, err := w.client(x).CreateChatCompletionStream(ctx, chatRequest(req, !w.noStreamOptions))
		if err == nil {
			return &chatStream{x: x, s: s, resp: &response{}}, nil
		}
		err = &attemptError{err: sdkError(err), header: x.header}
		if rejectsStreamOptions(err) && !w.noStreamOptions {
			w.noStreamOptions = true
			continue
		}
		return nil, err
	}
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
	}
	cc.HTTPClient = x
	return openai.NewClientWithConfig(cc)
}

// chatStream iterates over the chunks of one streamed reply.
type chatStream struct {
	x    *exchange
	s    *openai.ChatCompletionStream
	resp *response
	cur  delta
	err  error
	end  bool
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
