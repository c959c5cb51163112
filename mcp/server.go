package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
)

// DefaultMaxSessions is how many sandboxes (one per MCP session that has
// run a tool) the server holds at once unless told otherwise.
const DefaultMaxSessions = 4

// maxOpen bounds the MCP sessions open at once, with a sandbox or not (an
// HTTP client that never ends its session holds one until it is idle).
const maxOpen = 256

// Options configure a server.
type Options struct {
	// Config is what every session runs with: image, limits, cell
	// timeout, output folder, share, thousands.
	Config config.Config
	// Roots are the folders a client may attach files from; empty means
	// the working directory.
	Roots []string
	// OpenSources connects the databases sql(db=NAME) and run_sql reach;
	// each MCP session opens its own and its session closes them. Nil:
	// none.
	OpenSources func(context.Context) (*source.Set, error)
	// Cluster is the Dask cluster every session's kernel reaches; nil: none.
	Cluster *source.Dask
	// MaxSessions bounds the sandboxes at once: the first tool call of
	// the next session that needs one is refused, saying why. Zero means
	// DefaultMaxSessions.
	MaxSessions int
	// Engine, when set, is shared by every session and not closed; else
	// the server connects once, when first needed.
	Engine *engine.Engine
	// Index is the session index's folder; empty means the default.
	Index string
	// Build is quarry's version, for the record and the server's name.
	Build string
	// Log hears one line per thing the operator should know (a session
	// started or closed, a refusal); nil discards them.
	Log func(string)
	// Warm is how many sandboxes Prepare starts ahead for the sessions to
	// come (session.Pool), each handed to one session; zero: none, each
	// session starts its own at its first call.
	Warm int
}

// DefaultWarm is quarry mcp --http's pool: two sandboxes started ahead,
// so two clients that connect together both find one, for the memory of
// two idle sandboxes.
const DefaultWarm = 2

// Server is quarry's MCP server: one sdk.Server whose sessions each map to
// a client of their own.
type Server struct {
	opts  Options
	roots *Roots
	sdk   *sdk.Server

	mu        sync.Mutex
	clients   map[*sdk.ServerSession]*client
	closed    bool
	sandboxes int // sessions with a sandbox, or starting one

	engMu  sync.Mutex // held while connecting: sessions wait for the one connection
	engine *engine.Engine
	ownEng bool
	pool   *session.Pool // sandboxes started ahead (Options.Warm), made by Prepare; guarded by mu
}

// New makes a server; it checks the roots but starts nothing.
func New(opts Options) (*Server, error) {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	roots, err := NewRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	out := session.OutputParent(opts.Config)
	if err := roots.Private(out, holdsSessions); err != nil {
		return nil, fmt.Errorf("the output folder %s: %w", out, err)
	}
	// quarry's own state and settings (the session index, the config file
	// with its keys) are no client's either, wherever XDG puts them.
	index := opts.Index
	if index == "" {
		index = session.DefaultIndex()
	}
	cfg, _, _ := config.Path(config.Overrides{})
	for _, dir := range []string{index, filepath.Dir(cfg)} {
		if dir != "" && dir != "." {
			if err := roots.Private(dir, holdsState); err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
		}
	}
	s := &Server{opts: opts, roots: roots, clients: map[*sdk.ServerSession]*client{}, engine: opts.Engine}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "quarry", Title: "quarry", Version: opts.Build}, &sdk.ServerOptions{
		Instructions:              instructions,
		HasResources:              true,
		SupportedProtocolVersions: sessionVersions(),
	})
	s.sdk.AddReceivingMiddleware(s.sessions, s.listResources)
	s.addTools()
	s.addResourceTemplates()
	return s, nil
}

// sessionVersions are the protocol versions with sessions (initialize):
// a sandbox lives as long as its session, and the sessionless protocol
// (2026-07-28) has none to hold it, so its clients fall back to these.
func sessionVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < sessionless {
			out = append(out, v)
		}
	}
	return out
}

const sessionless = "2026-07-28"

// instructions is what a client's model is told of the server at
// initialize.
const instructions = `quarry runs Python (pandas, numpy, matplotlib, DuckDB through sql()) in a sandbox with no network, one stateful kernel per session.
Attach a data file with attach_file first: its profile says how to read it (the read call, the columns, the dialect). Then run code with run_python (variables persist between calls), or SQL with run_sql.
Files are under /data (read-only); save files for the user under /output, figures with plt.savefig or plt.show(). undo takes back the last run_python or run_sql.
Before you answer with numbers, check them with check_numbers: each number must be in a cell's output. export_session writes the session as a notebook or report.`

func (s *Server) log(format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, args...))
	}
}

// sessions keeps a client per MCP session: made at initialize and closed
// when the MCP session ends.
func (s *Server) sessions(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if !ok || method != "initialize" {
			return next(ctx, method, req)
		}
		if err := s.admit(ss); err != nil {
			s.log("%v", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
		}
		return next(ctx, method, req)
	}
}

// admit makes the client of a new MCP session.
func (s *Server) admit(ss *sdk.ServerSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("quarry mcp is stopping")
	}
	if _, ok := s.clients[ss]; ok {
		return nil
	}
	if len(s.clients) >= maxOpen {
		return fmt.Errorf("quarry mcp holds %d MCP sessions, its most: end sessions you no longer use (an idle one ends by itself)", len(s.clients))
	}
	c := &client{srv: s, ss: ss}
	s.clients[ss] = c
	go func() {
		ss.Wait()
		s.drop(ss)
	}()
	return nil
}

// reserve takes a sandbox's place within MaxSessions; release gives it
// back.
func (s *Server) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sandboxes >= s.opts.MaxSessions {
		return fmt.Errorf("quarry mcp runs %d sandboxes, its limit (--max-sessions %d): end another client's session (or wait until an idle one ends), or start quarry mcp with a higher --max-sessions", s.sandboxes, s.opts.MaxSessions)
	}
	s.sandboxes++
	return nil
}

func (s *Server) release() {
	s.mu.Lock()
	s.sandboxes--
	s.mu.Unlock()
}

// clientOf is the client of an MCP session; nil before initialize.
func (s *Server) clientOf(ss *sdk.ServerSession) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[ss]
}

// drop closes the client of an MCP session that ended; it counts against
// the limit until its sandbox is gone.
func (s *Server) drop(ss *sdk.ServerSession) {
	s.mu.Lock()
	c := s.clients[ss]
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	s.mu.Lock()
	delete(s.clients, ss)
	s.mu.Unlock()
}

func (s *Server) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Roots are the folders clients may attach from, absolute.
func (s *Server) Roots() []string { return s.roots.Dirs() }

// ServeStdio serves one MCP session on in and out until in ends (the
// client went away) or ctx is done (a signal); then every sandbox is
// removed before it returns.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	ss, err := s.sdk.Connect(ctx, &sdk.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	ended := make(chan struct{})
	go func() {
		ss.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	return s.Close()
}

// Close removes every session's sandbox (running cells are cut short)
// and ends the MCP sessions. Safe twice.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	clients := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			c.close()
			c.ss.Close()
		})
	}
	wg.Wait()
	s.mu.Lock()
	pool := s.pool
	s.mu.Unlock()
	var errs []error
	if err := pool.Close(); err != nil { // after the sessions: none takes one now
		errs = append(errs, fmt.Errorf("warm pool: %w", err))
	}
	s.engMu.Lock()
	e, own := s.engine, s.ownEng
	s.engine, s.ownEng = nil, false
	s.engMu.Unlock()
	if e != nil && own {
		errs = append(errs, e.Close())
	}
	return errors.Join(errs...)
}

// engineConn is the engine every session shares, connected once.
func (s *Server) engineConn(ctx context.Context) (*engine.Engine, error) {
	s.engMu.Lock()
	defer s.engMu.Unlock()
	if s.engine != nil {
		return s.engine, nil
	}
	if s.stopping() {
		return nil, errors.New("quarry mcp is stopping")
	}
	e, err := engine.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s.engine, s.ownEng = e, true
	return e, nil
}

// Prepare connects the engine the sessions share and removes the
// sandboxes quarry processes that died left behind (a quarry mcp killed
// with -9 among them), by their labels; quarry mcp runs it as it starts,
// so the first tool call waits for neither. It says what it removed, and
// when the sandbox image is missing (the first call would build it).
func (s *Server) Prepare(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	e, err := s.engineConn(ctx)
	if err != nil {
		s.log("the container engine cannot be reached yet (%v): each tool call tries again; quarry doctor says more", err)
		return
	}
	sandbox.SweepAndTell(ctx, e, func(line string) { s.log("%s", line) })
	if s.opts.Config.Image == "" {
		if ok, err := image.Present(ctx, e); err == nil && !ok {
			s.log("the sandbox image is missing: the first tool call builds it, which takes minutes; run quarry sandbox build first")
		}
	}
	if s.opts.Warm > 0 {
		s.mu.Lock()
		if !s.closed && s.pool == nil {
			s.pool = session.NewPool(e, s.opts.Config, s.opts.Warm, func(line string) { s.log("%s", line) })
		}
		s.mu.Unlock()
	}
}

// poolReady is how many sandboxes the warm pool has ready.
func (s *Server) poolReady() int {
	s.mu.Lock()
	p := s.pool
	s.mu.Unlock()
	if p == nil {
		return 0
	}
	return p.Ready()
}

// pooled is a sandbox started ahead for a session, or nil.
func (s *Server) pooled() *session.Pooled {
	s.mu.Lock()
	p := s.pool
	s.mu.Unlock()
	return p.Take()
}
