package e2e

import (
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Ctrl+C while doctor's test sandbox runs: the sandbox is removed and the
// exit status is 130, as everywhere else.
func TestDoctorInterruptedRemovesSandbox(t *testing.T) {
	sandboxtest.Engine(t)
	r := newRun(t, "", "doctor").withoutModel()
	r.start()
	pid := r.cmd.Process.Pid
	t.Cleanup(func() { removeLabelled(t, pid) })
	// Interrupt as soon as doctor's container exists: its kernel is still
	// starting (a fixed sleep raced the start, now well under a second).
	deadline := time.Now().Add(time.Minute)
	for containersOf(t, pid) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("doctor made no sandbox in a minute\nstderr:\n%s", r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.cmd.Process.Signal(syscall.SIGINT)
	code := r.wait(time.Minute)
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout.String(), r.stderr.String())
	if code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	requireNoContainers(t, pid)
}
