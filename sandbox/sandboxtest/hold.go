package sandboxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"
)

// HoldingProxy is an HTTP proxy on a loopback port in front of the real
// engine's Unix socket that holds every create request (containers and
// volumes) for hold before it passes it on, whether or not the client
// still waits: an engine that is slow to take a create up and then carries
// it out all the same, the moment a Ctrl+C hurts most. Each held request's
// object name is sent on held as it arrives; the rest passes at once,
// connection upgrades (attach) included. It returns the tcp:// address to
// use as DOCKER_HOST.
func HoldingProxy(t testing.TB, hold time.Duration) (host string, held <-chan string) {
	t.Helper()
	sock := EngineSocket(t)
	target, _ := url.Parse("http://engine")
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	names := make(chan string, 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !(strings.HasSuffix(r.URL.Path, "/containers/create") || strings.HasSuffix(r.URL.Path, "/volumes/create")) {
			rp.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		name := r.URL.Query().Get("name")
		if name == "" { // a volume names itself in its body
			name = volumeName(body)
		}
		select {
		case names <- name:
		default:
		}
		time.Sleep(hold)
		// Carried out even when the client gave up, as by an engine.
		r2 := r.Clone(context.Background())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r2)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "tcp://" + ln.Addr().String(), names
}

func volumeName(body []byte) string {
	var v struct{ Name string }
	json.Unmarshal(body, &v)
	return v.Name
}
