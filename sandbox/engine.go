package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// Engine is the one Docker client quarry owns; close it once, at exit.
type Engine struct {
	cli     *client.Client
	host    string
	version string // engine version, e.g. 20.10.24
	api     string // negotiated API version
	runtime string // "runsc" when the engine offers gVisor, else ""
}

// ErrNoEngine wraps every failure to reach the Docker engine, so front ends
// can tell "start Docker" apart from other failures.
var ErrNoEngine = errors.New("docker engine not reachable")

// Connect reaches the engine named by DOCKER_HOST (or the local socket),
// negotiates the API version down to what the engine speaks and checks that
// it answers within the context's deadline.
func Connect(ctx context.Context) (*Engine, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (check DOCKER_HOST)", ErrNoEngine, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(pingCtx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w at %s: %v\n%s", ErrNoEngine, cli.DaemonHost(), err, engineHint())
	}
	e := &Engine{cli: cli, host: cli.DaemonHost(), api: cli.ClientVersion()}
	// Info carries the engine version too: one call instead of Info plus
	// ServerVersion, each of which costs Docker 20.10 ~30 ms (both gather
	// the runc and docker-init versions). Connect starts every session.
	if info, err := cli.Info(pingCtx, client.InfoOptions{}); err == nil {
		e.version = info.Info.ServerVersion
		if _, ok := info.Info.Runtimes["runsc"]; ok {
			e.runtime = "runsc"
		}
	}
	if e.version == "" {
		v, err := cli.ServerVersion(pingCtx, client.ServerVersionOptions{})
		if err != nil {
			cli.Close()
			return nil, fmt.Errorf("%w: version: %v", ErrNoEngine, err)
		}
		e.version = v.Version
	}
	return e, nil
}

func engineHint() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return "Is the engine at DOCKER_HOST=" + h + " running and reachable?"
	}
	return "Start Docker (sudo systemctl start docker, or run scripts/ensure-docker.sh as root), or set DOCKER_HOST."
}

// Close releases the client. Safe to call more than once.
func (e *Engine) Close() error {
	if e == nil || e.cli == nil {
		return nil
	}
	return e.cli.Close()
}

// Host is the engine address, e.g. unix:///var/run/docker.sock.
func (e *Engine) Host() string { return e.host }

// Version is the engine's version string.
func (e *Engine) Version() string { return e.version }

// APIVersion is the negotiated API version.
func (e *Engine) APIVersion() string { return e.api }

// Runtime is the OCI runtime sandboxes use: "runsc" (gVisor) or "runc".
func (e *Engine) Runtime() string {
	if e.runtime != "" {
		return e.runtime
	}
	return "runc"
}

// Remote reports whether the engine is not on this machine's Unix socket, so
// host paths cannot be bind-mounted and files must travel over the API.
func (e *Engine) Remote() bool {
	return !strings.HasPrefix(e.host, "unix://") && !strings.HasPrefix(e.host, "npipe://")
}
