package engine_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
)

// connect reaches the engine DOCKER_HOST names; without one the test skips
// on a developer machine and fails in CI.
func connect(t *testing.T) *engine.Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("engine test cannot run in CI: %v", err)
		}
		t.Skipf("engine test skipped: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Connect takes the engine version from the ping's Server header (one call
// fewer); it must be the version /version reports.
func TestConnectReportsEngineVersion(t *testing.T) {
	e := connect(t)
	v, err := e.Client().ServerVersion(context.Background(), client.ServerVersionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Version() == "" || e.Version() != v.Version {
		t.Fatalf("engine version %q, /version says %q", e.Version(), v.Version)
	}
	if e.APIVersion() == "" || e.Runtime() == "" {
		t.Fatalf("api %q runtime %q", e.APIVersion(), e.Runtime())
	}
}
