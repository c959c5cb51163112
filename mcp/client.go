package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
)

// client is one MCP session: its quarry session, made on the first tool
// call that needs a sandbox, and the files its cells saved.
type client struct {
	srv *Server
	ss  *sdk.ServerSession

	startMu sync.Mutex // one start at a time; the calls behind it wait
	closing sync.Once

	mu      sync.Mutex
	sess    *session.Session
	closed  bool
	outputs []kernel.File // harvested, newest version of each name last
	exports []exported
	report  *progress         // the call waiting for the start, told its steps
	placed  bool              // holds one of the server's MaxSessions places
	cells   map[*running]bool // the cells in progress (disconnect.go)
}

// errGone: a call that arrived as its MCP session ended.
var errGone = errors.New("this MCP session has ended: connect again")

// name is the client's name as its initialize said, cleaned for the
// record and the log (it is untrusted).
func (c *client) name() string {
	n := "an MCP client"
	if p := c.ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		if s := strings.TrimSpace(render.SanitizeLine(p.ClientInfo.Name)); s != "" {
			n = s
		}
	}
	if r := []rune(n); len(r) > 40 {
		n = string(r[:39]) + "…"
	}
	return n
}

// current is the quarry session when it has started, else nil.
func (c *client) current() *session.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// session is the client's quarry session, started now when it is the
// first call that needs one; the start's steps go to p as progress. A
// start that fails leaves no session, so the next call tries again.
func (c *client) session(ctx context.Context, p *progress) (*session.Session, error) {
	c.startMu.Lock()
	defer c.startMu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errGone
	}
	if c.sess != nil {
		s := c.sess
		c.mu.Unlock()
		return s, nil
	}
	c.report = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.report = nil
		c.mu.Unlock()
	}()
	if err := c.srv.reserve(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.placed = true
	c.mu.Unlock()
	s, pooled, err := c.start(ctx, p)
	if err != nil {
		c.freePlace()
		return nil, err
	}
	from := ""
	if pooled {
		from = fmt.Sprintf(", its sandbox from the warm pool, which has %d more ready", c.srv.poolReady())
	}
	c.srv.log("session %s started for %s (quarry sessions lists it%s)", s.ID(), c.name(), from)
	return s, nil
}

// start makes and starts the quarry session, in its place, on a sandbox
// from the warm pool when one is ready (pooled).
func (c *client) start(ctx context.Context, p *progress) (*session.Session, bool, error) {
	o := c.srv.opts
	e, err := c.srv.engineConn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("container engine: %w", err)
	}
	var sources *source.Set
	if o.OpenSources != nil {
		p.say("connecting to the databases")
		if sources, err = o.OpenSources(ctx); err != nil {
			return nil, false, c.maskErr(err)
		}
	}
	pooled := c.srv.pooled()
	s := session.New(session.Options{Config: o.Config, Events: c.event, Engine: e, Index: o.Index, Build: o.Build, Sources: sources, Cluster: o.Cluster, Tool: c.name(),
		ReadCheck: c.srv.roots.Recheck, Pooled: pooled})
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.Close()
		return nil, false, errGone
	}
	c.sess = s
	c.mu.Unlock()
	if err := s.Start(ctx); err != nil {
		s.Close()
		c.mu.Lock()
		c.sess = nil
		c.mu.Unlock()
		return nil, false, fmt.Errorf("the sandbox did not start: %w", err)
	}
	return s, pooled != nil, nil
}

// event hears the quarry session's own events: start-up steps go to the
// call waiting for the start.
func (c *client) event(e agent.Event) {
	if e.Kind == agent.EventWarning {
		c.srv.log("%s's session: %s", c.name(), e.Text) // the sandbox's limits that do not hold, say
	}
	if e.Kind != agent.EventProgress {
		return
	}
	c.mu.Lock()
	p := c.report
	c.mu.Unlock()
	p.say(e.Text)
}

// close removes the sandbox; the record stays for quarry sessions. A
// second caller (the server stopping while the session ends) waits for
// the first to finish, so nothing returns while the container is still
// being removed.
func (c *client) close() { c.closing.Do(c.shut) }

func (c *client) shut() {
	c.mu.Lock()
	c.closed = true
	s := c.sess
	c.mu.Unlock()
	if s == nil {
		return
	}
	if err := s.Close(); err != nil {
		c.srv.log("session %s: %v", s.ID(), err)
	}
	c.freePlace()
	c.srv.log("session %s of %s closed, its sandbox removed", s.ID(), c.name())
}

// freePlace gives the client's place among the sandboxes back, once.
func (c *client) freePlace() {
	c.mu.Lock()
	placed := c.placed
	c.placed = false
	c.mu.Unlock()
	if placed {
		c.srv.release()
	}
}

// maskErr hides secrets in an error from before the session exists (the
// sources' credentials); the session masks its own.
func (c *client) maskErr(err error) error {
	m := secret.New(c.srv.opts.Config.Secrets()...)
	return m.WrapError(err)
}

// saved notes the files a cell saved, for list_outputs and resources.
func (c *client) saved(fs ...kernel.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range fs {
		c.outputs = slices.DeleteFunc(c.outputs, func(o kernel.File) bool { return o.Name == f.Name })
		f.PNG, f.Inline = nil, nil // read back from the folder when asked for
		c.outputs = append(c.outputs, f)
	}
}

// forget drops files undo removed.
func (c *client) forget(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		c.outputs = slices.DeleteFunc(c.outputs, func(o kernel.File) bool { return o.Name == n })
	}
}
