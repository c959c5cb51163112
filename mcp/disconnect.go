package mcp

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that goes away over HTTP in the middle of a cell (its
// connection closed, no cancellation sent) leaves no kernel running for
// no one: the cell is interrupted and the session's sandbox removed, as
// when a stdio client closes its input. A client that cancels the call
// (notifications/cancelled, which drops the call's connection too) keeps
// its session: the call's own context ends, and that is told apart here
// by waiting a moment for it.

// disconnectGrace is how long a dropped call may take to be cancelled
// by its client before it counts as the client gone: the Go SDK's client
// sends its cancellation about 2 s after it drops the call's connection.
const disconnectGrace = 10 * time.Second

// callsEnd bounds the wait for interrupted cells before the sandbox goes.
const callsEnd = 10 * time.Second

// running is a cell in progress: the call's context (cancelled when the
// client cancels it), the cell's own, stopped when the client is gone,
// and the POST that carried the call.
type running struct {
	call context.Context
	stop context.CancelFunc
	post string
}

// postHeader names each POST for the calls it carries (the tool handler
// reads it in the request's headers): a dropped connection stops only the
// cell of its own call.
const postHeader = "X-Quarry-Post"

// watchDrops hears the POSTs that ended with their connection gone.
func (s *Server) watchDrops(next http.Handler) http.Handler {
	var posts atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		post := strconv.FormatInt(posts.Add(1), 10)
		r.Header.Set(postHeader, post) // a client's own value is replaced
		next.ServeHTTP(w, r)
		// Before ServeHTTP returns, the request's context ends only when
		// the client closed the connection.
		if r.Method == http.MethodPost && r.Context().Err() != nil {
			if id := r.Header.Get("Mcp-Session-Id"); id != "" {
				go s.dropped(id, post)
			}
		}
	})
}

// postOf is the POST that carried a call, "" off HTTP.
func postOf(extra *sdk.RequestExtra) string {
	if extra == nil || extra.Header == nil {
		return ""
	}
	return extra.Header.Get(postHeader)
}

// dropped ends the MCP session id when the cell of the call that POST
// carried is still running once the grace is over, not cancelled by the
// client.
func (s *Server) dropped(id, post string) {
	time.Sleep(disconnectGrace)
	var c *client
	s.mu.Lock()
	for ss, cl := range s.clients {
		if ss.ID() == id {
			c = cl
		}
	}
	s.mu.Unlock()
	if c == nil || !c.stopOrphanCells(post) {
		return
	}
	s.log("%s went away during a cell: the cell is interrupted and its session's sandbox removed", c.name())
	for deadline := time.Now().Add(callsEnd); c.cellsRunning() > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	c.close()
	c.ss.Close()
}

// startCell registers a cell of call ctx, carried by post; the returned
// context is the cell's, done its end.
func (c *client) startCell(ctx context.Context, post string) (context.Context, func()) {
	cellCtx, stop := context.WithCancel(ctx)
	r := &running{call: ctx, stop: stop, post: post}
	c.mu.Lock()
	if c.cells == nil {
		c.cells = map[*running]bool{}
	}
	c.cells[r] = true
	c.mu.Unlock()
	return cellCtx, func() {
		c.mu.Lock()
		delete(c.cells, r)
		c.mu.Unlock()
		stop()
	}
}

// stopOrphanCells interrupts the cell of the call post carried when its
// client did not cancel it, and tells whether there was one.
func (c *client) stopOrphanCells(post string) bool {
	if post == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	found := false
	for r := range c.cells {
		if r.post == post && r.call.Err() == nil {
			r.stop()
			found = true
		}
	}
	return found
}

func (c *client) cellsRunning() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cells)
}
