package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// defaultHTTPClient has no overall timeout (answers stream for minutes) but
// gives up on a server that never starts answering.
var defaultHTTPClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 3 * time.Minute
	return &http.Client{Transport: t}
}()

// exchange is one HTTP attempt: what the server answered beyond what
// go-openai reports (the Retry-After headers, whether [DONE] arrived).
type exchange struct {
	base   *http.Client
	header http.Header
	body   *doneWatcher
}

func (x *exchange) Do(req *http.Request) (*http.Response, error) {
	resp, err := x.base.Do(req)
	if err != nil {
		return nil, err
	}
	x.header = resp.Header.Clone()
	if resp.StatusCode < 300 {
		x.body = &doneWatcher{ReadCloser: resp.Body}
		resp.Body = x.body
	}
	return resp, nil
}

// sawDone reports whether the stream carried its "data: [DONE]" line:
// go-openai returns io.EOF both then and when the connection just ends.
func (x *exchange) sawDone() bool { return x.body != nil && x.body.done }

// client builds a go-openai client whose HTTP traffic goes through x.
func (a *Agent) client(x *exchange) *openai.Client {
	var cc openai.ClientConfig
	if a.cfg.AzureAPIVersion != "" {
		cc = openai.DefaultAzureConfig(a.cfg.APIKey, a.cfg.BaseURL)
		cc.APIVersion = a.cfg.AzureAPIVersion
		// The deployment name is used as given, not rewritten the
		// go-openai way (which strips "." from 3.5 model names).
		cc.AzureModelMapperFunc = func(m string) string { return m }
	} else {
		cc = openai.DefaultConfig(a.cfg.APIKey)
		if a.cfg.BaseURL != "" {
			cc.BaseURL = a.cfg.BaseURL
		}
	}
	x.base = a.cfg.HTTPClient
	if x.base == nil {
		x.base = defaultHTTPClient
	}
	cc.HTTPClient = x
	return openai.NewClientWithConfig(cc)
}

// doneWatcher passes the body through and reads its lines on the side: it
// notes "data: [DONE]", and keeps an error sent inside the stream, which
// go-openai loses when SSE comments (": ping") came before it.
type doneWatcher struct {
	io.ReadCloser
	line    []byte // the current, unfinished line
	done    bool
	errLine []byte // the JSON of a data: {"error":…} line
}

func (d *doneWatcher) Read(p []byte) (int, error) {
	n, err := d.ReadCloser.Read(p)
	for _, b := range p[:n] {
		if b != '\n' {
			if len(d.line) < 1<<16 {
				d.line = append(d.line, b)
			}
			continue
		}
		line := bytes.TrimSpace(d.line)
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			switch {
			case string(data) == "[DONE]":
				d.done = true
			case bytes.HasPrefix(data, []byte(`{"error"`)):
				d.errLine = append([]byte(nil), data...)
			}
		}
		d.line = d.line[:0]
	}
	return n, err
}

// streamError is the error the server sent inside the stream, if any.
func (x *exchange) streamError() error {
	if x.body == nil || x.body.errLine == nil {
		return nil
	}
	var er openai.ErrorResponse
	if json.Unmarshal(x.body.errLine, &er) != nil || er.Error == nil {
		return nil
	}
	return er.Error
}
