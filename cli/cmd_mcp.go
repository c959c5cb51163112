package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/mcp"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
)

type mcpFlags struct {
	http        string
	allowRemote bool
	roots       []string
	maxSessions int
	warm        int
	idle        time.Duration
	tokenFile   string
	outputDir   string
	overrides   config.Overrides
}

// mcpCmd is `quarry mcp [--http ADDR]`.
func (a *app) mcpCmd() *cobra.Command {
	f := &mcpFlags{}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve quarry's sandbox, files, databases and number checks to other agents (MCP)",
		Long: `Run quarry as a Model Context Protocol server, for agents such as Claude Code,
Claude Desktop, Codex, Cursor or VS Code: on standard input and output (the
default), or over streamable HTTP with --http.

Tools: attach_file, run_python, run_sql, list_outputs, undo, check_numbers and
export_session (docs/mcp.md). Each MCP session gets its own sandbox (no
network, one stateful kernel), started on its first tool call and removed
when the client goes away or the server stops; it is recorded like a chat,
so quarry sessions, export, rerun and --resume work on it.

Clients attach files only from the folders given with --root (default: the
working directory); a path outside them, through "..", a symbolic link or a
hard link is refused. Databases come from --db and the config, read-only,
their credentials never shown to the client.

Over HTTP the server listens on a loopback address (another only with
--allow-remote), makes a token at each start, prints it on standard error
and refuses every request without it, and refuses requests from web pages
of other sites. It keeps --warm sandboxes started ahead (default 2), each
handed to one new session, so a first call waits for no start.`,
		Example: `quarry mcp --root ~/data
claude mcp add quarry -- quarry mcp --root ~/data
quarry mcp --http 127.0.0.1:8765 --root ~/data --max-sessions 8`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if f.http != "" {
				if err := mcp.CheckAddress(f.http, f.allowRemote); err != nil {
					return usagef(c, "%v", err)
				}
			} else if f.allowRemote || f.tokenFile != "" || c.Flags().Changed("idle-timeout") || c.Flags().Changed("warm") {
				return usagef(c, "--allow-remote, --token-file, --idle-timeout and --warm go with --http ADDR (on standard input and output the session ends when the client closes it)")
			}
			if f.maxSessions < 1 {
				return usagef(c, "--max-sessions %d: give a positive number (the default is %d)", f.maxSessions, mcp.DefaultMaxSessions)
			}
			if !c.Flags().Changed("warm") {
				f.warm = min(f.warm, f.maxSessions)
			}
			if f.warm < 0 || f.warm > f.maxSessions {
				return usagef(c, "--warm %d: give 0 (no sandbox started ahead) up to --max-sessions (%d)", f.warm, f.maxSessions)
			}
			if f.idle <= 0 {
				return usagef(c, "--idle-timeout %s: give a positive duration, e.g. 30m (the default)", f.idle)
			}
			return a.serveMCP(c, f)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of standard input and output")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "with --http: allow an address other machines reach (they still need the token)")
	fs.StringArrayVar(&f.roots, "root", nil, "a folder whose files clients may attach (repeatable; default the working directory)")
	fs.IntVar(&f.maxSessions, "max-sessions", mcp.DefaultMaxSessions, "most MCP sessions (sandboxes) at once; the next is refused")
	fs.IntVar(&f.warm, "warm", mcp.DefaultWarm, "with --http: sandboxes started ahead, each for one new session's first call (0: none)")
	fs.DurationVar(&f.idle, "idle-timeout", mcp.DefaultIdle, "with --http: close a session silent this long and remove its sandbox")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --http: also write the token to this file (mode 0600), for a client's configuration")
	fs.StringVar(&f.outputDir, "output-dir", "", "folder that holds each session's folder (default output_dir from the config, else ./quarry-output)")
	fs.StringVar(&f.overrides.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	fs.StringVar(&f.overrides.Profile, "profile", "", "profile from the config file (its sources and limits among its settings)")
	fs.DurationVar(&f.overrides.Timeout, "timeout", 0, "time limit of one cell, e.g. 30s or 10m (default 2m); timeout_s can only lower it")
	fs.Lookup("timeout").DefValue = ""
	fs.StringVar(&f.overrides.Share, "share", "", "what clients see of files: values or schema (default values)")
	fs.StringArrayVar(&f.overrides.DB, "db", nil, "a database for run_sql and sql(db=NAME): "+source.Examples()+" (repeatable; [sources.NAME] in the config works too)")
	daskFlag(fs, &f.overrides.Dask)
	daskDataFlag(fs, &f.overrides.DaskData)
	c.Flags().SortFlags = false
	return c
}

func (a *app) serveMCP(c *cobra.Command, f *mcpFlags) error {
	cfg, err := config.Load(f.overrides)
	if err != nil {
		return inputError{err}
	}
	cfg.APIKey = "" // no model here: the key stays out of every session
	if f.outputDir != "" {
		cfg.OutputDir = f.outputDir
	}
	parent, setting := session.OutputParent(cfg), cfg.Source("output_dir")
	if cfg.OutputDir == "" {
		setting = "the default"
	}
	if f.outputDir != "" {
		setting = "--output-dir"
	}
	if err := session.CheckOutputParent(parent, setting); err != nil {
		return inputError{err}
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(cfg.Sources) > 0 { // checked now, so a bad URL fails here and not at a client's first call
		set, err := openSources(ctx, cfg)
		if err != nil {
			return inputError{err}
		}
		set.Close()
	}
	cluster, err := openCluster(cfg)
	if err != nil {
		return inputError{err}
	}
	logf := func(line string) { fmt.Fprintln(a.stderr, "quarry mcp: "+render.SanitizeLine(line)) }
	srv, err := mcp.New(mcp.Options{
		Config:      cfg,
		Roots:       f.roots,
		OpenSources: func(ctx context.Context) (*source.Set, error) { return openSources(ctx, cfg) },
		Cluster:     cluster,
		MaxSessions: f.maxSessions,
		Build:       a.build.Version,
		Warm:        warmFor(f),
		Log:         logf,
	})
	if err != nil {
		return inputError{err}
	}
	go srv.Prepare(ctx)
	roots := strings.Join(srv.Roots(), ", ")
	if f.http == "" {
		logf("serving MCP on standard input and output; clients attach files from " + roots)
		err = srv.ServeStdio(ctx, io.NopCloser(a.stdin), nopWriteCloser{a.stdout})
	} else {
		err = a.serveMCPHTTP(ctx, srv, f, roots, logf)
	}
	if ctx.Err() != nil {
		return interrupted{"mcp: stopped; every sandbox removed"}
	}
	return err
}

func (a *app) serveMCPHTTP(ctx context.Context, srv *mcp.Server, f *mcpFlags, roots string, logf func(string)) error {
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return inputError{fmt.Errorf("--http %s: %v: choose another address or port", f.http, err)}
	}
	token := mcp.NewToken()
	if f.tokenFile != "" {
		if err := os.WriteFile(f.tokenFile, []byte(token+"\n"), 0o600); err != nil {
			ln.Close()
			return inputError{fmt.Errorf("--token-file %s: %v", f.tokenFile, err)}
		}
	}
	logf(fmt.Sprintf("serving MCP at http://%s%s; clients attach files from %s", ln.Addr(), mcp.Path, roots))
	logf("token (send it as Authorization: Bearer TOKEN): " + token)
	return srv.ServeHTTP(ctx, ln, mcp.HTTPOptions{Token: token, Idle: f.idle})
}

// warmFor is the pool's size: --warm with --http, none on standard input
// and output (its one session starts at its first call).
func warmFor(f *mcpFlags) int {
	if f.http == "" {
		return 0
	}
	return f.warm
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
