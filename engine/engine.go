package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moby/moby/client"
)

// Engine is the one client quarry owns for the container engine (Docker, or
// Podman through its Docker-compatible API); close it once, at exit.
type Engine struct {
	cli      *client.Client
	stop     func() // ends what carries the connection (an ssh tunnel)
	host     string
	kind     Kind
	version  string   // engine version, e.g. 20.10.24 or 4.3.1
	api      string   // negotiated API version
	runtime  string   // OCI runtime sandboxes run under
	runsc    bool     // gVisor is offered and quarry asks for it
	rootless bool     // the engine runs as an ordinary user
	cgroup   string   // "1" or "2" when the engine says
	runtimes []string // the runtimes the engine names in /info

	// chosen is the runtime quarry asks for instead of the engine's
	// default, after the default refused this host (see fallback.go).
	chosenMu sync.Mutex
	chosen   string
	why      string

	// pageSize is the engine host's memory page size, in which Podman's
	// tmpfs volumes are sized; learned from the first session's /output.
	pageSize atomic.Int64

	owed owedRemovals // removals the engine was away for (owed.go)

	infoOnce  sync.Once // readInfo's fields are read after it
	closeOnce sync.Once
}

// Kind names the engine behind the Docker API.
type Kind string

const (
	Docker Kind = "Docker"
	Podman Kind = "Podman"
)

// PodmanNproc is the process rlimit a container asks of rootful Podman,
// which otherwise asks the runtime for 1048576 processes (and as many open
// files), more than root may set without CAP_SYS_RESOURCE: the runtime
// refuses at attach ("error setting rlimit"). A container there names both
// limits. Docker counts the host's processes of the user against nproc, so
// it is asked of Podman only; the pids cgroup is the real cap.
const PodmanNproc = 32768

// ErrUnreachable wraps every failure to reach the container engine, so front
// ends can tell "start the engine" apart from other failures.
var ErrUnreachable = errors.New("container engine not reachable")

// Connect reaches the engine named by DOCKER_HOST (or the local Docker
// socket), negotiates the API version down to what the engine speaks and
// checks that it answers within the context's deadline. DOCKER_HOST may be
// unix://, tcp:// or ssh://user@host[:port][/socket/path].
func Connect(ctx context.Context) (*Engine, error) {
	// The ping's response names the engine and its version (Server:
	// Docker/20.10.24, or Libpod/4.3.1 with a Libpod-Api-Version header), so
	// no /version request is needed.
	var mu sync.Mutex
	var server string
	var libpod bool
	hook := func(r *http.Response) {
		mu.Lock()
		defer mu.Unlock()
		if server == "" {
			server = r.Header.Get("Server")
		}
		libpod = libpod || r.Header.Get("Libpod-Api-Version") != ""
	}
	cli, host, stop, err := newClient(client.WithHTTPResponseHook(hook))
	if err != nil {
		return nil, fmt.Errorf("%w: %v (check DOCKER_HOST)", ErrUnreachable, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := cli.Ping(pingCtx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		stop()
		return nil, fmt.Errorf("%w at %s: %v\n%s", ErrUnreachable, host, err, engineHint())
	}
	e := &Engine{cli: cli, stop: stop, host: host, api: cli.ClientVersion(), kind: Docker}
	e.pageSize.Store(4096)
	mu.Lock()
	product, version := parseServer(server)
	if libpod || product == "Libpod" {
		e.kind = Podman
	}
	mu.Unlock()
	e.version = version
	if e.version == "" { // a proxy that drops the header
		v, err := cli.ServerVersion(pingCtx, client.ServerVersionOptions{})
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("%w: version: %v", ErrUnreachable, err)
		}
		e.version = v.Version
		for _, c := range v.Components {
			if c.Name == "Podman Engine" {
				e.kind = Podman
			}
		}
	}
	// Docker's /info is cheap and decides the runtime of the first
	// container; Podman's takes ~0.2 s and decides nothing a session
	// needs, so it waits until something asks.
	if e.kind == Docker {
		e.loadInfo(pingCtx)
	}
	return e, nil
}

// parseServer splits a Server header: "Docker/20.10.24+dfsg1 (linux)".
func parseServer(h string) (product, version string) {
	p, rest, ok := strings.Cut(h, "/")
	if !ok {
		return "", ""
	}
	v, _, _ := strings.Cut(rest, " ")
	return p, v
}

// loadInfo takes the runtime, rootless mode and cgroup version from /info,
// once; without an answer the defaults stand (runc, rootful, unknown).
func (e *Engine) loadInfo(ctx context.Context) {
	e.infoOnce.Do(func() {
		if ctx == nil {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx = c
		}
		if r, err := e.cli.Info(ctx, client.InfoOptions{}); err == nil {
			e.readInfo(r)
		}
	})
}

// readInfo takes the runtime, rootless mode and cgroup version from /info.
func (e *Engine) readInfo(r client.SystemInfoResult) {
	i := r.Info
	e.cgroup = i.CgroupVersion
	e.runtime = i.DefaultRuntime
	for name := range i.Runtimes {
		e.runtimes = append(e.runtimes, name)
	}
	slices.Sort(e.runtimes)
	for _, o := range i.SecurityOptions {
		if o == "name=rootless" {
			e.rootless = true
		}
	}
	switch e.kind {
	case Podman:
		// Podman lists every runtime its configuration knows, installed or
		// not: gVisor is used only when the administrator made it the
		// default. Podman 4.3 does not say "rootless" in SecurityOptions;
		// its rootless storage lives in the user's home, never in /var.
		e.runsc = i.DefaultRuntime == "runsc"
		if i.DockerRootDir != "" && !strings.HasPrefix(i.DockerRootDir, "/var/") {
			e.rootless = true
		}
	default:
		if _, ok := i.Runtimes["runsc"]; ok {
			e.runsc = true
			e.runtime = "runsc"
		}
	}
	if e.runtime == "" {
		e.runtime = "runc"
	}
}

func engineHint() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return "Is the engine at DOCKER_HOST=" + h + " running and reachable?"
	}
	return "Start Docker (sudo systemctl start docker, or run scripts/ensure-docker.sh as root), " +
		"or point DOCKER_HOST at Podman (e.g. unix:///run/user/$UID/podman/podman.sock after `systemctl --user start podman.socket`)."
}

// Close releases the client. Safe to call more than once.
func (e *Engine) Close() error {
	if e == nil || e.cli == nil {
		return nil
	}
	err := e.cli.Close()
	e.closeOnce.Do(func() {
		if e.stop != nil {
			e.stop()
		}
	})
	return err
}

// Host is the engine address, e.g. unix:///var/run/docker.sock.
func (e *Engine) Host() string { return e.host }

// Kind says whether the engine is Docker or Podman.
func (e *Engine) Kind() Kind { return e.kind }

// Version is the engine's version string.
func (e *Engine) Version() string { return e.version }

// APIVersion is the negotiated API version.
func (e *Engine) APIVersion() string { return e.api }

// Runtime is the OCI runtime sandboxes run under: "runsc" (gVisor), or the
// engine's default (runc, crun).
func (e *Engine) Runtime() string {
	e.loadInfo(nil)
	if r, _ := e.RuntimeChoice(); r != "" {
		return r
	}
	if e.runtime != "" {
		return e.runtime
	}
	return "runc"
}

// Rootless reports an engine that runs as an ordinary user (rootless
// Podman or rootless Docker): container root is that user on the host.
func (e *Engine) Rootless() bool {
	e.loadInfo(nil)
	return e.rootless
}

// CgroupVersion is "1" or "2" (empty when the engine does not say).
func (e *Engine) CgroupVersion() string {
	e.loadInfo(nil)
	return e.cgroup
}

// Describe names the engine for people: "Podman 4.3.1 (rootless, cgroup v1)".
func (e *Engine) Describe() string {
	e.loadInfo(nil)
	var notes []string
	if e.rootless {
		notes = append(notes, "rootless")
	}
	if e.cgroup != "" {
		notes = append(notes, "cgroup v"+e.cgroup)
	}
	s := string(e.kind) + " " + e.version
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// Client is the moby client for the packages that drive the engine
// (sandbox, image); they must not close it.
func (e *Engine) Client() *client.Client { return e.cli }

// Gvisor reports that sandboxes run under gVisor (runsc).
func (e *Engine) Gvisor() bool {
	e.loadInfo(nil)
	return e.runsc
}

// PageSize is the engine host's memory page size (4096 until a session has
// measured it), in which Podman's tmpfs volumes are sized.
func (e *Engine) PageSize() int64 { return e.pageSize.Load() }

// SetPageSize records the page size a session measured on the engine host.
func (e *Engine) SetPageSize(n int64) { e.pageSize.Store(n) }

// Remote reports whether the engine is not on this machine's Unix socket, so
// host paths cannot be bind-mounted and files must travel over the API.
func (e *Engine) Remote() bool {
	return !strings.HasPrefix(e.host, "unix://") && !strings.HasPrefix(e.host, "npipe://")
}
