// Package sandboxtest gives Docker-backed tests a real engine and the sandbox
// image. Without an engine a test skips on a developer machine and fails in
// CI (CI=true), so CI can never pass by skipping.
package sandboxtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// Engine connects to the Docker engine and checks that the sandbox image for
// the current recipe exists. The engine is closed when the test ends.
func Engine(t testing.TB) *sandbox.Engine {
	t.Helper()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("Docker-backed test skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := sandbox.Connect(ctx)
	if err != nil {
		unavailable(t, err.Error())
	}
	t.Cleanup(func() { e.Close() })
	ok, err := e.ImagePresent(ctx)
	if err != nil {
		t.Fatalf("sandbox image check: %v", err)
	}
	if !ok {
		unavailable(t, "sandbox image "+sandbox.ImageRef()+" is missing: run `make image` (go run . sandbox build)")
	}
	return e
}

// Session starts a sandbox session with an output folder in t.TempDir and
// closes it when the test ends.
func Session(t testing.TB, e *sandbox.Engine, opts sandbox.Options) *sandbox.Session {
	t.Helper()
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := e.Start(ctx, opts)
	if err != nil {
		t.Fatalf("sandbox start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("sandbox close: %v", err)
		}
	})
	return s
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("Docker-backed test cannot run in CI: %s", why)
	}
	t.Skipf("Docker-backed test skipped: %s", why)
}
