package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func post(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if h, ok := hdr["Host"]; ok {
		req.Host = h
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// Every request needs the token; a page of another site is refused before
// that, and a loopback server answers no other host's name.
func TestHTTPTokenAndOrigin(t *testing.T) {
	srv, _ := testServer(t, Options{}, false)
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "right-token"}))
	defer ts.Close()
	url := ts.URL + Path
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized},
		{"basic auth", map[string]string{"Authorization": "Basic cmlnaHQtdG9rZW4="}, http.StatusUnauthorized},
		{"another site's page", map[string]string{"Authorization": "Bearer right-token", "Origin": "https://evil.example.com"}, http.StatusForbidden},
		{"another site's page, no token", map[string]string{"Origin": "http://evil.example.com"}, http.StatusForbidden},
		{"a rebound host name", map[string]string{"Authorization": "Bearer right-token", "Host": "evil.example.com", "Origin": "http://evil.example.com"}, http.StatusForbidden},
		{"the token", map[string]string{"Authorization": "Bearer right-token"}, http.StatusOK},
		{"a page on this machine", map[string]string{"Authorization": "Bearer right-token", "Origin": "http://localhost:6274"}, http.StatusOK},
	} {
		res := post(t, url, c.hdr)
		if res.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, res.StatusCode, c.want)
		}
		if c.want == http.StatusUnauthorized && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: no WWW-Authenticate: Bearer", c.name)
		}
	}
}

func TestCheckAddress(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:8765": true, "[::1]:1": true, ":8765": false, "0.0.0.0:80": false, "192.0.2.1:80": false, "nonsense": false} {
		if err := CheckAddress(addr, false); (err == nil) != ok {
			t.Errorf("CheckAddress(%q) = %v", addr, err)
		}
	}
	if err := CheckAddress("0.0.0.0:80", true); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
}

// bearer adds the token to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Eight clients at once over HTTP, each with a sandbox and state of its
// own; when they leave, nothing is left.
func TestHTTPEightClients(t *testing.T) {
	const n = 8
	srv, logs := testServer(t, Options{MaxSessions: n}, true)
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "tok"}))
	defer ts.Close()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			tr := &sdk.StreamableClientTransport{Endpoint: ts.URL + Path, HTTPClient: &http.Client{Transport: bearer{"tok"}}}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: fmt.Sprintf("client-%d", i), Version: "1"}, nil).Connect(t.Context(), tr, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			callTool(t, cs, "run_python", map[string]any{"code": fmt.Sprintf("mine = %d", i*11)})
			res := callTool(t, cs, "run_python", map[string]any{"code": "print('value', mine)"})
			if got := text(res); !strings.Contains(got, fmt.Sprintf("value %d", i*11)) {
				errs <- fmt.Errorf("client %d sees another state:\n%s", i, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for deadline := time.Now().Add(time.Minute); openSessions(srv) > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if openSessions(srv) != 0 {
		t.Fatalf("%d sessions still open after every client closed", openSessions(srv))
	}
	ids := logs.sessionIDs()
	if len(ids) != n {
		t.Fatalf("%d sessions started, want %d", len(ids), n)
	}
	for _, id := range ids {
		sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
	}
}
