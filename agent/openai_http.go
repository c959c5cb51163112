package agent

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

// defaultHTTPClient has no overall timeout (answers stream for minutes) but
// gives up on a server that never starts answering.
var defaultHTTPClient = httpClient(3 * time.Minute)

// wholeHTTPClient waits longer for headers: without streaming they come
// only once the whole answer is written.
var wholeHTTPClient = httpClient(10 * time.Minute)

func httpClient(headerTimeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	return &http.Client{Transport: t}
}

// exchange is one HTTP attempt: what the server answered beyond what
// go-openai reports (the Retry-After headers, whether [DONE] arrived, a
// body that was not a stream), and the request as go-openai cannot write
// it (patch).
type exchange struct {
	base   *http.Client
	idle   time.Duration // see idleBody; 0 means no limit
	whole  bool          // a request without streaming: the body is kept in raw
	patch  func([]byte) ([]byte, error)
	header http.Header
	body   *doneWatcher
	watch  *idleBody
	raw    []byte // the whole body of a successful non-streaming reply
}

func (x *exchange) Do(req *http.Request) (*http.Response, error) {
	if x.patch != nil && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err == nil {
			body, err = x.patch(body)
		}
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := x.base.Do(req)
	if err != nil {
		return nil, err
	}
	x.header = resp.Header.Clone()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		// go-openai reads an error body whole: keep only its head.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	if x.whole {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(body) > maxResponseBytes {
			return nil, &malformedError{err: fmt.Errorf("the response is larger than %s", kernel.FormatSize(maxResponseBytes))}
		}
		x.raw = body
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	if x.idle > 0 {
		x.watch = newIdleBody(resp.Body, x.idle)
		resp.Body = x.watch
	}
	x.body = &doneWatcher{ReadCloser: resp.Body}
	resp.Body = x.body
	return resp, nil
}

// sawDone reports whether the stream carried its "data: [DONE]" line:
// go-openai returns io.EOF both then and when the connection just ends.
func (x *exchange) sawDone() bool { return x.body != nil && x.body.done }

// stalled is the idle-timeout error when the stream went silent.
func (x *exchange) stalled() error {
	if x.watch != nil && x.watch.stalled.Load() {
		return &stallError{after: x.watch.timeout}
	}
	return nil
}

// doneWatcher passes the body through and reads its lines on the side: it
// notes "data: [DONE]", keeps an error sent inside the stream, which
// go-openai loses when SSE comments (": ping") came before it, and fails the
// read when a line or the non-data lines outgrow their limits (go-openai
// would buffer them whole).
type doneWatcher struct {
	io.ReadCloser
	line    []byte // the head of the current, unfinished line
	lineLen int    // its full length
	extra   int    // bytes of non-data lines so far
	done    bool
	errLine []byte // the JSON of a data: {"error":…} line
	// head is the body until its first data line, so that a reply which
	// is not an event stream at all can still be read (notStreamed).
	head     []byte
	sawData  bool
	headFull bool
}

func (d *doneWatcher) Read(p []byte) (int, error) {
	n, err := d.ReadCloser.Read(p)
	if !d.sawData && !d.headFull {
		if len(d.head)+n > maxResponseBytes {
			d.headFull, d.head = true, nil
		} else {
			d.head = append(d.head, p[:n]...)
		}
	}
	for i, b := range p[:n] {
		// On a limit, only the bytes before i are passed on: the caller
		// must not see the end of the line that broke it.
		if b != '\n' {
			if len(d.line) < 1<<16 {
				d.line = append(d.line, b)
			}
			if d.lineLen++; d.lineLen > maxStreamLine {
				return i, &malformedError{err: fmt.Errorf("a stream line is longer than %s", kernel.FormatSize(maxStreamLine))}
			}
			continue
		}
		line := bytes.TrimSpace(d.line)
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			d.sawData, d.head = true, nil
			data = bytes.TrimSpace(data)
			switch {
			case string(data) == "[DONE]":
				d.done = true
			case bytes.HasPrefix(data, []byte(`{"error"`)):
				d.errLine = append([]byte(nil), data...)
			}
		} else if d.extra += d.lineLen; d.extra > maxStreamExtra {
			return i, &malformedError{err: fmt.Errorf("the stream sent more than %s outside data lines", kernel.FormatSize(maxStreamExtra))}
		}
		d.line, d.lineLen = d.line[:0], 0
	}
	return n, err
}

// notStreamed is the whole body of a reply that carried no data line (a
// JSON completion, or chunks without their framing), read to its end;
// nil when it was a stream or too large.
func (x *exchange) notStreamed() []byte {
	if x.body == nil || x.body.sawData {
		return nil
	}
	io.Copy(io.Discard, x.body) // the rest, through the watcher and its limits
	if x.body.sawData || x.body.headFull || len(bytes.TrimSpace(x.body.head)) == 0 {
		return nil
	}
	return x.body.head
}

// streamError is the error the server sent inside the stream, if any.
func (x *exchange) streamError() error {
	if x.body == nil || x.body.errLine == nil {
		return nil
	}
	return streamErrorOf(x.body.errLine)
}
