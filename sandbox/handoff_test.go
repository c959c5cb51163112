package sandbox_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A sandbox released by the process that started it and adopted by
// another (here, one test with two engine connections) keeps its kernel:
// what the first ran is there for the second, the second's files reach
// its own folder, and its Close removes the container. The release's
// Close leaves it running; a background start runs at the lowest CPU
// weight until adopted.
func TestReleasedSandboxIsAdopted(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first, err := sandbox.Start(ctx, e, sandbox.Options{OutputDir: t.TempDir(), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	label := engine.LabelSession + "=" + first.ID()
	id := first.ID()
	t.Cleanup(func() { sandbox.Discard(context.Background(), e, sandbox.Handoff{ID: id}) })
	cellOK(t, cell(t, first, "before = 'kept'"))
	if e.Kind() == engine.Podman {
		if _, err := first.Release(); err == nil || !strings.Contains(err.Error(), "Podman") {
			t.Fatalf("Podman: release gave %v, want the refusal that names it", err)
		}
		if res := cell(t, first, "before"); res.Value == nil || res.Value.Repr != "'kept'" {
			t.Fatalf("a refused release lost the kernel: %+v", res)
		}
		return
	}
	if w := shares(t, e, first.ContainerID()); e.Kind() == engine.Docker && w != 2 {
		t.Errorf("a background sandbox has CPU weight %d, want the lowest (2)", w)
	}
	h, err := first.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if sandboxtest.Left(t, label) == 0 {
		t.Fatal("the released sandbox's Close removed it")
	}
	if res, err := first.Exec(ctx, "1", nil); err == nil && res.Error == nil {
		t.Error("the released side still runs cells")
	}

	b, err := json.Marshal(h) // it crosses a socket
	if err != nil {
		t.Fatal(err)
	}
	var got sandbox.Handoff
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	e2, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	dir := filepath.Join(t.TempDir(), "taker")
	second, err := sandbox.Adopt(ctx, e2, got, sandbox.Options{OutputDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if w := shares(t, e2, second.ContainerID()); e.Kind() == engine.Docker && w != 1024 {
		t.Errorf("an adopted sandbox has CPU weight %d, want the default (1024)", w)
	}
	if res := cell(t, second, "before"); res.Value == nil || res.Value.Repr != "'kept'" {
		t.Fatalf("the adopted kernel is not the released one: %+v", res)
	}
	cellOK(t, cell(t, second, "open('/output/after.txt', 'w').write('x')"))
	if _, err := os.Stat(filepath.Join(dir, "after.txt")); err != nil {
		t.Errorf("the adopter's file is not in its folder: %v", err)
	}
	if py, _ := second.PythonVersion(); py == "" {
		t.Error("the adopted sandbox lost the kernel's versions")
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireNothingLeft(t, label)

	// Nothing to adopt any more: a clear error, not a hang.
	if _, err := sandbox.Adopt(ctx, e2, got, sandbox.Options{OutputDir: t.TempDir()}); err == nil {
		t.Error("adopted a removed sandbox")
	}
}

func shares(t *testing.T, e *engine.Engine, id string) int64 {
	t.Helper()
	in, err := e.Client().ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return in.Container.HostConfig.CPUShares
}
