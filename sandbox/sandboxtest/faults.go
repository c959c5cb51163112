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
	"strconv"
	"strings"
	"testing"
)

// Refuse decides whether the engine proxy answers a request itself, as an
// engine that refuses it would: a status and the engine's JSON message.
type Refuse func(r *http.Request) (status int, message string, refuse bool)

// FaultProxy is an HTTP proxy on a loopback port in front of the real
// engine's Unix socket (DOCKER_HOST, or Docker's default socket) that
// answers the requests refuse picks with an engine error, and passes the
// rest, connection upgrades (attach) included. Edit, when set, rewrites
// /info answers (say, to offer another runtime). It returns the tcp://
// address to use as DOCKER_HOST.
func FaultProxy(t testing.TB, refuse Refuse, edit func(info map[string]any)) string {
	t.Helper()
	sock := EngineSocket(t)
	target, _ := url.Parse("http://engine")
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	if edit != nil {
		rp.ModifyResponse = func(resp *http.Response) error {
			if !strings.HasSuffix(resp.Request.URL.Path, "/info") || resp.StatusCode != http.StatusOK {
				return nil
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			var info map[string]any
			if json.Unmarshal(b, &info) == nil {
				edit(info)
				b, _ = json.Marshal(info)
			}
			resp.Body = io.NopCloser(bytes.NewReader(b))
			resp.ContentLength = int64(len(b))
			resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
			return nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, msg, ok := refuse(r); ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"cause": msg, "message": msg, "response": status})
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "tcp://" + ln.Addr().String()
}
