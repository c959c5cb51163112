package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

func isAttach(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/attach")
}

func connectTo(t *testing.T, host string) *engine.Engine {
	t.Helper()
	t.Setenv("DOCKER_HOST", host)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// An engine that refuses the attach (Podman initialises the container
// there) says why in the response body; the error the user sees carries
// those words verbatim, the fix fits them, and nothing is left behind.
func TestEngineRefusalReachesTheUser(t *testing.T) {
	sandboxtest.Engine(t)
	const why = "preparing container for attach: write /var/lib/containers/storage/overlay: no space left on device"
	host := sandboxtest.FaultProxy(t, func(r *http.Request) (int, string, bool) {
		return http.StatusConflict, why, isAttach(r)
	}, nil)
	e := connectTo(t, host)
	id := "refused-" + randHex()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: t.TempDir(), SessionID: id})
	if err == nil {
		s.Close()
		t.Fatal("the sandbox started although every attach was refused")
	}
	if !strings.Contains(err.Error(), why) {
		t.Fatalf("error %q does not carry the engine's words %q", err, why)
	}
	if strings.Contains(err.Error(), "unable to upgrade") {
		t.Errorf("error %q still has the client's bare upgrade message", err)
	}
	if fix := engine.Fix(err); !strings.Contains(fix, "free space") {
		t.Errorf("fix %q does not match a full disk", fix)
	}
	if rt, _ := e.RuntimeChoice(); rt != "" {
		t.Errorf("a full disk chose the runtime %q", rt)
	}
	sandboxtest.RequireNothingLeft(t, "io.quarry.session="+id)
}

// When the engine's default runtime refuses the host's cgroup layout
// (crun on a hybrid layout) and the engine offers runc, the sandbox is made
// again under runc, says so once, and works.
func TestRuntimeFallbackOnLayoutRefusal(t *testing.T) {
	sandboxtest.Engine(t)
	var attaches atomic.Int32
	var mu sync.Mutex
	var asked []string // HostConfig.Runtime of each container create
	host := sandboxtest.FaultProxy(t, func(r *http.Request) (int, string, bool) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/containers/create") {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var c struct{ HostConfig struct{ Runtime string } }
			json.Unmarshal(b, &c)
			mu.Lock()
			asked = append(asked, c.HostConfig.Runtime)
			mu.Unlock()
		}
		if isAttach(r) && attaches.Add(1) == 1 {
			return http.StatusConflict, "preparing container for attach: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2: OCI runtime error", true
		}
		return 0, "", false
	}, func(info map[string]any) {
		info["DefaultRuntime"] = "crun"
		rts, _ := info["Runtimes"].(map[string]any)
		if rts == nil {
			rts = map[string]any{}
		}
		rts["crun"] = map[string]any{"path": "/usr/bin/crun"}
		rts["runc"] = map[string]any{"path": "/usr/bin/runc"}
		info["Runtimes"] = rts
	})
	e := connectTo(t, host)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	cellOK(t, cell(t, s, "print(6 * 7)"))
	runtimes := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
	if asked := runtimes(); len(asked) != 2 || asked[1] != "runc" {
		t.Fatalf("runtimes asked at create: %q; want the default, then runc", asked)
	}
	if rt, why := e.RuntimeChoice(); rt != "runc" || !strings.Contains(why, "crun") || !strings.Contains(why, "hybrid mode") {
		t.Fatalf("runtime choice %q (%q)", rt, why)
	}
	if note := s.RuntimeNote(); !strings.Contains(note, "runc") || !strings.Contains(note, "hybrid mode") {
		t.Fatalf("runtime note %q", note)
	}
	// A later session of the same engine asks for runc from the start and
	// says nothing more.
	s2 := sandboxtest.Session(t, e, sandbox.Options{})
	if note := s2.RuntimeNote(); note != "" {
		t.Errorf("second session repeated the note: %q", note)
	}
	if asked := runtimes(); asked[len(asked)-1] != "runc" {
		t.Errorf("second session asked for %q", asked[len(asked)-1])
	}
}
