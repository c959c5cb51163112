package image

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestSweepStaleRootfsKeepsLiveBuilds(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("build folders live in /var/tmp and belong to root")
	}
	// A pid far above pid_max is never alive; our own pid always is.
	dead := filepath.Join(rootfsParent, fmt.Sprintf("quarry-rootfs-%d-test", 1<<30))
	live := filepath.Join(rootfsParent, fmt.Sprintf("quarry-rootfs-%d-test", os.Getpid()))
	for _, d := range []string{dead, live} {
		if err := os.MkdirAll(filepath.Join(d, "rootfs/etc"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(dead); os.RemoveAll(live) })
	sweepStaleRootfs()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("folder of a dead build not removed: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("folder of a running build removed: %v", err)
	}
}
