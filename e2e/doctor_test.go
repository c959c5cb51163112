package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Ctrl+C while one of doctor's creates is on its way to an engine that
// carries it out all the same (the package manifest's helper, the test
// sandbox's container): exit 130 and nothing left once the engine is done.
// The proxy holds each create, so the test interrupts in the same window
// on a fast engine and on a slow one.
func TestDoctorInterruptedRemovesSandbox(t *testing.T) {
	sandboxtest.Engine(t)
	const hold = time.Second
	for _, c := range []struct {
		role string
		is   func(name string) bool
	}{
		{"manifest", func(name string) bool { return strings.HasPrefix(name, "quarry-manifest-") }},
		{"sandbox", sandboxContainer},
	} {
		t.Run(c.role, func(t *testing.T) {
			host, held := sandboxtest.HoldingProxy(t, hold)
			r := newRun(t, "", "doctor").withoutModel().withEngine(host)
			r.start()
			pid := r.cmd.Process.Pid
			t.Cleanup(func() { removeLabelled(t, pid) })
			heldAt := waitForHeld(t, held, c.is, time.Minute)
			r.cmd.Process.Signal(syscall.SIGINT)
			code := r.wait(time.Minute)
			t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout.String(), r.stderr.String())
			if code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			time.Sleep(time.Until(heldAt.Add(hold + 500*time.Millisecond))) // the engine has done the create
			requireNoContainers(t, pid)
		})
	}
}

// sandboxContainer picks a session's container among the creates: not a
// helper's, not one of its volumes.
func sandboxContainer(name string) bool {
	return !strings.HasPrefix(name, "quarry-manifest-") && !strings.HasPrefix(name, "quarry-status-") &&
		!strings.HasSuffix(name, "-data") && !strings.HasSuffix(name, "-output")
}

// waitForHeld waits for a create the proxy holds whose object name is
// picked by is, and returns when it arrived.
func waitForHeld(t *testing.T, held <-chan string, is func(string) bool, limit time.Duration) time.Time {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case name := <-held:
			if is(name) {
				return time.Now()
			}
		case <-timeout:
			t.Fatalf("no such create in %s", limit)
		}
	}
}
