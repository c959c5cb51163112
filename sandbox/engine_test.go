package sandbox_test

import (
	"context"
	"testing"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Connect takes the engine version from Info (one call fewer); it must be
// the version /version reports.
func TestConnectReportsEngineVersion(t *testing.T) {
	e := sandboxtest.Engine(t)
	want, err := e.EngineVersionAPI(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e.Version() == "" || e.Version() != want {
		t.Fatalf("engine version %q, /version says %q", e.Version(), want)
	}
	if e.APIVersion() == "" || e.Runtime() == "" {
		t.Fatalf("api %q runtime %q", e.APIVersion(), e.Runtime())
	}
}
