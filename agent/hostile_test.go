package agent

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

// sse builds a stream body from chunk JSON texts, ended by [DONE].
func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func callChunk(index string) string {
	return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + index +
		`,"id":"call_x","type":"function","function":{"name":"python","arguments":"{\"code\":\"1\"}"}}]}}]}`
}

// assertRefused checks that a hostile response ends the turn with a
// readable server error, runs nothing and is not retried.
func assertRefused(t *testing.T, srv *openaitest.Server, k *stubKernel, a *Agent, want string) {
	t.Helper()
	_, rec, err := run(t, a, "q")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindProtocol || !strings.Contains(ae.Message, want) {
		t.Fatalf("Run error = %v, want a protocol error mentioning %q", err, want)
	}
	if len(k.Codes()) != 0 {
		t.Errorf("the kernel ran %q", k.Codes())
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests: a hostile answer must not be retried\n%s", n, rec.all())
	}
}

// A model server is untrusted: a tool-call index is a number it chooses.
func TestToolCallIndexOutOfRange(t *testing.T) {
	for _, index := range []string{"-1", "100000", "2147483647"} {
		t.Run(index, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.Raw(sse(callChunk(index), `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)))
			k := echoKernel()
			assertRefused(t, srv, k, newAgent(t, testConfig(srv), k), "tool call")
		})
	}
}

func TestTooManyToolCallsWithoutIndex(t *testing.T) {
	var chunks []string
	for i := range maxToolCalls + 1 {
		chunks = append(chunks, fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"python","arguments":"{}"}}]}}]}`, i))
	}
	srv := openaitest.New(t, openaitest.Raw(sse(chunks...)))
	k := echoKernel()
	assertRefused(t, srv, k, newAgent(t, testConfig(srv), k), "tool call")
}

// One SSE line larger than the limit is refused before it is all in memory.
func TestHugeStreamLineIsRefused(t *testing.T) {
	huge := `{"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", maxStreamLine) + `"}}]}`
	srv := openaitest.New(t, openaitest.Raw(sse(huge)))
	k := echoKernel()
	assertRefused(t, srv, k, newAgent(t, testConfig(srv), k), "line")
}

// Tool arguments streamed without end, in chunks of ordinary size.
func TestEndlessArgumentsAreRefused(t *testing.T) {
	piece := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + strings.Repeat("x", 64<<10) + `"}}]}}]}`
	chunks := []string{callChunk("0")}
	for range maxResponseBytes/(64<<10) + 1 {
		chunks = append(chunks, piece)
	}
	srv := openaitest.New(t, openaitest.Raw(sse(chunks...)))
	k := echoKernel()
	assertRefused(t, srv, k, newAgent(t, testConfig(srv), k), "larger than")
}

// go-openai keeps every non-data line of a stream; a flood of comments is
// refused.
func TestCommentFloodIsRefused(t *testing.T) {
	comment := ": " + strings.Repeat("p", 60<<10) + "\n"
	body := "data: " + `{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
		strings.Repeat(comment, maxStreamExtra/(60<<10)+2) + sse(`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`)
	srv := openaitest.New(t, openaitest.Raw(body))
	k := echoKernel()
	assertRefused(t, srv, k, newAgent(t, testConfig(srv), k), "outside data lines")
}

// A huge error body is not read whole; the turn still fails in words.
func TestHugeErrorBodyIsCapped(t *testing.T) {
	hostile := openaitest.Reply{Status: 400, RawBody: strings.Repeat("<p>", 4<<20)}
	srv := openaitest.New(t, hostile, hostile)
	k := echoKernel()
	_, _, err := run(t, newAgent(t, testConfig(srv), k), "q")
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Message) > 500 {
		t.Fatalf("Run error = %v", err)
	}
	x := &exchange{base: defaultHTTPClient}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
	resp, err := x.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	if n > maxErrorBody {
		t.Errorf("read %d bytes of an error body, limit %d", n, maxErrorBody)
	}
}

// Retry-After is the server's number: an absurd one must not overflow into
// a negative wait (an immediate retry) but make quarry give up.
func TestAbsurdRetryAfter(t *testing.T) {
	now := time.Now()
	for _, v := range []string{"1e300", "Inf", "9223372036854775807"} {
		got, ok := parseRetryAfter(v, now)
		if !ok || got < time.Hour {
			t.Errorf("parseRetryAfter(%q) = %v %v, want a long wait", v, got, ok)
		}
	}
	err := &attemptError{err: errors.New("429"), header: map[string][]string{"Retry-After-Ms": {"1e300"}}}
	if got, ok := retryAfter(err); !ok || got < time.Hour {
		t.Errorf("retry-after-ms 1e300 = %v %v", got, ok)
	}
}
