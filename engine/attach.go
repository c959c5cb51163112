package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/moby/moby/client"
)

// Attach attaches to a container's stdin, stdout and stderr (multiplexed,
// no TTY), as the client's ContainerAttach does, but reads a refusal's body:
// Podman initialises a created container on attach, so a runtime that
// cannot run it refuses here, and its words ("crun: cgroups in hybrid mode
// not supported…") are the only useful part of the answer.
func (e *Engine) Attach(ctx context.Context, id string) (client.HijackedResponse, error) {
	conn, err := e.cli.Dialer()(ctx)
	if err != nil {
		return client.HijackedResponse{}, fmt.Errorf("container attach: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	q := url.Values{"stream": {"1"}, "stdin": {"1"}, "stdout": {"1"}, "stderr": {"1"}}
	path := "/containers/" + url.PathEscape(id) + "/attach?" + q.Encode()
	if v := e.cli.ClientVersion(); v != "" {
		path = "/v" + strings.TrimPrefix(v, "v") + path
	}
	req, err := http.NewRequest(http.MethodPost, "http://docker"+path, http.NoBody)
	if err == nil {
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "tcp")
		req.Header.Set("Content-Type", "text/plain")
		err = req.Write(conn)
	}
	var resp *http.Response
	br := bufio.NewReader(conn)
	if err == nil {
		resp, err = http.ReadResponse(br, req)
	}
	if !stop() {
		conn.Close()
		return client.HijackedResponse{}, fmt.Errorf("container attach: %w", ctx.Err())
	}
	if err != nil {
		conn.Close()
		return client.HijackedResponse{}, fmt.Errorf("container attach: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBody))
		conn.Close()
		return client.HijackedResponse{}, &Refused{Op: "container attach", Status: resp.StatusCode, Message: engineMessage(b)}
	}
	return client.NewHijackedResponse(&bufferedConn{Conn: conn, r: br}, resp.Header.Get("Content-Type")), nil
}

// maxRefusalBody bounds what is read of a refusal's body.
const maxRefusalBody = 16 << 10

// bufferedConn reads first what the response reader already buffered.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// CloseWrite ends stdin, where the connection can (unix and TCP sockets).
func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
