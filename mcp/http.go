package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// `quarry mcp --http`: streamable HTTP at /mcp. Every request needs the
// token made for this start (Authorization: Bearer), and one from a web
// page of another site (its Origin) is refused before that; the SDK also
// refuses a request that reached a loopback address under another host's
// name (DNS rebinding). A loopback address is the default; another only
// with --allow-remote.

// Path is where the endpoint is served.
const Path = "/mcp"

// DefaultIdle is how long an HTTP client may stay silent before its
// session is closed and its sandbox removed: a client that vanished
// without ending its session frees its place.
const DefaultIdle = 30 * time.Minute

// HTTPOptions configure the HTTP endpoint.
type HTTPOptions struct {
	Token string        // every request must carry it
	Idle  time.Duration // zero means DefaultIdle
}

// NewToken is a fresh bearer token: 32 random bytes in hex.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// CheckAddress refuses an address other than loopback unless remote
// clients are allowed: a remote client with the token runs code on this
// machine's sandbox and reads the roots.
func CheckAddress(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: give HOST:PORT, e.g. 127.0.0.1:8765 (port 0 picks a free one)", addr)
	}
	if allowRemote || isLoopback(host) {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return fmt.Errorf("--http %s listens on %s, not only this machine: use 127.0.0.1:PORT, or add --allow-remote if other machines may connect (each still needs the token)", addr, where)
}

func isLoopback(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the endpoint behind its checks.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{SessionTimeout: o.Idle})
	mux := http.NewServeMux()
	mux.Handle(Path, s.watchDrops(h))
	return guard(o.Token, mux)
}

// guard checks the Origin, then the token.
func guard(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !sameSite(origin, r.Host) {
			http.Error(w, "Forbidden: quarry mcp takes no requests from web pages of other sites (Origin "+origin+")", http.StatusForbidden)
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || len(want) == 0 || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="quarry mcp"`)
			http.Error(w, "Unauthorized: send the token quarry mcp printed when it started, as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameSite tells an Origin this server may answer: the host the request
// was sent to, or a page on this machine when the server is on it too.
func sameSite(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	return isLoopback(u.Hostname()) && isLoopback(h)
}

// ServeHTTP serves the endpoint on ln until ctx is done, then removes
// every session's sandbox and stops.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	srv := &http.Server{Handler: s.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		s.Close()
		return fmt.Errorf("mcp http: %w", err)
	case <-ctx.Done():
	}
	err := s.Close() // the sessions end, and with them their streams
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e := srv.Shutdown(stop); e != nil && !errors.Is(e, context.DeadlineExceeded) {
		err = errors.Join(err, e)
	}
	srv.Close()
	return err
}
