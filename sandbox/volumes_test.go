package sandbox_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A session's volumes carry the owner labels the sweep relies on, /data is
// on the engine's disk and /output is the size- and inode-capped tmpfs.
func TestStartVolumesLabelledAndCapped(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	ctx := context.Background()
	for _, role := range []string{"data", "output"} {
		driver, labels, opts, err := sandbox.SessionVolume(ctx, e, s.ID(), role)
		if err != nil {
			t.Fatalf("%s volume: %v", role, err)
		}
		if driver != "local" {
			t.Errorf("%s volume driver %q, want local", role, driver)
		}
		if labels["io.quarry.session"] != s.ID() || labels["io.quarry.role"] != role ||
			labels["io.quarry.pid"] != strconv.Itoa(os.Getpid()) || labels["io.quarry.created"] == "" {
			t.Errorf("%s volume labels %v", role, labels)
		}
		if role == "data" && len(opts) != 0 {
			t.Errorf("data volume options %v, want none (the engine's disk)", opts)
		}
		if role == "output" {
			o := opts["o"]
			// Podman's local driver takes size= as a disk quota: its cap is
			// in pages, so the size is checked from inside below.
			want := "size=" + strconv.FormatInt(sandbox.DefaultLimits.OutputSize, 10)
			if e.Kind() == engine.Podman {
				want = "nr_blocks="
			}
			if opts["type"] != "tmpfs" || !strings.Contains(o, want) || !strings.Contains(o, "nr_inodes=") ||
				!strings.Contains(o, "noexec") || !strings.Contains(o, "nosuid") {
				t.Errorf("output volume options %v, want a tmpfs with %s, nr_inodes, noexec, nosuid", opts, want)
			}
		}
	}
	// The caps as the container sees them, on every engine and page size.
	en := s.Enforcement()
	if !en.Measured || en.OutputBytes != sandbox.DefaultLimits.OutputSize || en.TmpBytes != sandbox.DefaultLimits.TmpSize {
		t.Errorf("effective caps %+v: /output %d bytes, /tmp %d, want %d and %d", en, en.OutputBytes, en.TmpBytes,
			sandbox.DefaultLimits.OutputSize, sandbox.DefaultLimits.TmpSize)
	}
	var st struct {
		Output []int64 `json:"output"`
	}
	runJSON(t, s, "import os\nv = os.statvfs('/output')\nout = {'output': [v.f_frsize * v.f_blocks, v.f_files]}"+report, &st)
	if len(st.Output) != 2 || st.Output[0] != sandbox.DefaultLimits.OutputSize || st.Output[1] < 10000 {
		t.Errorf("statvfs(/output) = %v, want %d bytes and an inode cap", st.Output, sandbox.DefaultLimits.OutputSize)
	}
}

// A create that raced with Close leaves a container whose volumes the engine
// made on its own; Podman gives them none of the labels asked for. The sweep
// finds them through their container and removes them with it.
func TestSweepRemovesVolumesARacingCreateMade(t *testing.T) {
	e := sandboxtest.Engine(t)
	ctx := testCtx(t)
	id := "race-" + randHex()
	if err := sandbox.CreateRacedContainer(ctx, e, id, 1<<30); err != nil { // a pid above pid_max: never alive
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.RemoveSession(context.Background(), e, id) })
	if left := sandbox.SessionVolumesLeft(ctx, e, id); len(left) != 2 {
		t.Fatalf("the engine made volumes %v at create, want both of the session's", left)
	}
	if _, err := sandbox.Sweep(ctx, e); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := sandbox.SessionObjects(ctx, e, id); c != 0 {
		t.Errorf("sweep left the orphaned container")
	}
	if left := sandbox.SessionVolumesLeft(ctx, e, id); len(left) != 0 {
		t.Errorf("sweep left the volumes %v the engine made on its own", left)
	}
}
