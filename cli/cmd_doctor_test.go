package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// doctorEnv isolates the configuration and points the model at a fake
// OpenAI server that requires testKey.
func doctorEnv(t *testing.T, model string) *openaitest.Server {
	t.Helper()
	isolateConfig(t)
	srv := openaitest.New(t)
	srv.RequireKey(testKey)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("QUARRY_MODEL", model)
	return srv
}

func lineWith(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func checkPlainAndKeyless(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences in output to a non-terminal:\n%q", out)
	}
	if strings.Contains(out, "DOCTORSECRET") {
		t.Errorf("doctor printed the key:\n%s", out)
	}
}

func TestDoctorUnreachableEngine(t *testing.T) {
	doctorEnv(t, "gpt-fake")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	code, out, _ := runCmd(t, "doctor")
	if code == exitOK {
		t.Fatalf("exit 0 with no engine:\n%s", out)
	}
	if l := lineWith(out, "✗ container engine:"); !strings.Contains(l, "nonexistent.sock") {
		t.Errorf("engine line %q:\n%s", l, out)
	}
	if !strings.Contains(out, "fix: start the engine at DOCKER_HOST=unix:///nonexistent.sock") {
		t.Errorf("no fix:\n%s", out)
	}
	for _, want := range []string{"– sandbox image: skipped", "– sandbox: skipped", "✓ configuration:", "✓ terminal: output is not a terminal",
		"✓ what the model sees: share = values (default)", "! mcp server: a client runs: "} {
		if lineWith(out, want) == "" {
			t.Errorf("no line %q:\n%s", want, out)
		}
	}
	if l := lineWith(out, "✓ model endpoint:"); !strings.Contains(l, "has gpt-fake") || !strings.Contains(l, "key from env OPENAI_API_KEY") {
		t.Errorf("model line %q:\n%s", l, out)
	}
	checkPlainAndKeyless(t, out)
}

func TestDoctorUnknownModelSuggests(t *testing.T) {
	doctorEnv(t, "gpt-fak")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	code, out, _ := runCmd(t, "doctor")
	l := lineWith(out, "✗ model endpoint:")
	if code == exitOK || !strings.Contains(l, `"gpt-fak"`) || !strings.Contains(l, "closest: gpt-fake") {
		t.Fatalf("exit %d, line %q:\n%s", code, l, out)
	}
	checkPlainAndKeyless(t, out)
}

func TestDoctorWrongKey(t *testing.T) {
	srv := doctorEnv(t, "gpt-fake")
	srv.RequireKey("sk-another-key-0000000000")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	_, out, _ := runCmd(t, "doctor")
	if l := lineWith(out, "✗ model endpoint:"); !strings.Contains(l, "refused the key (HTTP 401)") {
		t.Fatalf("line %q:\n%s", l, out)
	}
	checkPlainAndKeyless(t, out)
	if strings.Contains(out, "sk-another") {
		t.Fatalf("doctor printed the server's key:\n%s", out)
	}
}

func TestDoctorBadConfiguration(t *testing.T) {
	doctorEnv(t, "gpt-fake")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent.sock")
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte("tool_mode = \"foo\"\n"), 0o600)
	code, out, _ := runCmd(t, "doctor", "--config", path)
	if code == exitOK || !strings.Contains(lineWith(out, "✗ configuration:"), path+":1") || !strings.Contains(out, "fix: use one of auto, native, markdown") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if lineWith(out, "– model endpoint: skipped") == "" {
		t.Errorf("model check should be skipped:\n%s", out)
	}
}

// requireEngine connects to the real engine: skipped locally without one,
// a failure in CI.
func requireEngine(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Docker-backed test cannot run in CI: %v", err)
		}
		t.Skipf("Docker-backed test skipped: %v", err)
	}
	e.Close()
}

func TestDoctorMissingImage(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("Docker-backed test skipped in -short mode")
	}
	doctorEnv(t, "gpt-fake")
	requireEngine(t)
	t.Setenv("QUARRY_IMAGE", "quarry-sandbox:doctor-test-no-such-tag")
	code, out, _ := runCmd(t, "doctor")
	if code == exitOK {
		t.Fatalf("exit 0 with a missing image:\n%s", out)
	}
	if l := lineWith(out, "✓ container engine:"); !strings.Contains(l, "API ") || !strings.Contains(l, "runtime ") {
		t.Errorf("engine line %q:\n%s", l, out)
	}
	if l := lineWith(out, "✗ sandbox image:"); !strings.Contains(l, "quarry-sandbox:doctor-test-no-such-tag") || !strings.Contains(l, "env QUARRY_IMAGE") {
		t.Errorf("image line %q:\n%s", l, out)
	}
	if !strings.Contains(out, "fix: build or load that image") || lineWith(out, "– sandbox: skipped") == "" {
		t.Errorf("fix or skip missing:\n%s", out)
	}
	checkPlainAndKeyless(t, out)
}

func TestDoctorAllGreen(t *testing.T) {
	doctorEnv(t, "gpt-fake")
	sandboxtest.Engine(t) // skips without the engine or the image
	code, out, _ := runCmd(t, "doctor")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if l := lineWith(out, "✓ sandbox image:"); !strings.Contains(l, "recipe current") {
		t.Errorf("image line %q", l)
	}
	// The exact versions from the image's manifest follow.
	for _, want := range []string{"    python3 3.", "python3-pandas 2.3", "python3-pyarrow 25.", "libduckdb2.0 2.0."} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not show %q:\n%s", want, out)
		}
	}
	if l := lineWith(out, "✓ sandbox:"); !strings.Contains(l, "has no network (interfaces: lo; no routes)") {
		t.Errorf("sandbox line %q:\n%s", l, out)
	}
	// Limits the engine drops are a warning (exit 0 above), never a "✓".
	held, warned := lineWith(out, "✓ limits:"), lineWith(out, "! limits:")
	switch {
	case held != "" && !strings.Contains(held, "enforced by the engine's cgroups"):
		t.Errorf("limits line %q", held)
	case warned != "" && !strings.Contains(out, "fix: for hard limits use cgroup v2"):
		t.Errorf("limits warning without a fix:\n%s", out)
	case held == "" && warned == "":
		t.Errorf("no limits line:\n%s", out)
	}
	checkPlainAndKeyless(t, out)

	// The doctor's sandbox is gone: nothing labelled with this process is left.
	sandboxtest.RequireNothingLeft(t, fmt.Sprintf("io.quarry.pid=%d", os.Getpid()))
}

// An engine whose runtime refuses the host's cgroup layout, with no other
// runtime to offer: doctor shows the engine's own words and the fix for
// that cause, not "rebuild the image".
func TestDoctorShowsTheEnginesReason(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("Docker-backed test skipped in -short mode")
	}
	doctorEnv(t, "gpt-fake")
	sandboxtest.Engine(t)
	const why = "preparing container for attach: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2: OCI runtime error"
	host := sandboxtest.FaultProxy(t, func(r *http.Request) (int, string, bool) {
		return http.StatusConflict, why, r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/attach")
	}, func(info map[string]any) {
		info["DefaultRuntime"] = "crun"
		info["Runtimes"] = map[string]any{"crun": map[string]any{"path": "/usr/bin/crun"}}
	})
	t.Setenv("DOCKER_HOST", host)
	code, out, _ := runCmd(t, "doctor")
	if code == exitOK {
		t.Fatalf("exit 0 with a refused sandbox:\n%s", out)
	}
	l := lineWith(out, "✗ sandbox:")
	if !strings.Contains(l, why) {
		t.Fatalf("sandbox line %q lacks the engine's words:\n%s", l, out)
	}
	if !strings.Contains(out, `fix: the engine's OCI runtime refuses this host's cgroup layout`) || strings.Contains(out, "quarry sandbox build (to rebuild") {
		t.Fatalf("fix does not match the cause:\n%s", out)
	}
	checkPlainAndKeyless(t, out)
}
