package e2e

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// kill -9 leaves what quarry made in the engine; the next start of any
// command that talks to the engine removes it and says so in one line.
// Killed at a few moments of `quarry demo -p`: its sandbox starting, its
// cells, its report being built.
func TestKilledRunSweptByNextStart(t *testing.T) {
	sandboxtest.Engine(t)
	for _, moment := range []string{"starting the sandbox", "cell 1 running", "writing the report"} {
		t.Run(strings.ReplaceAll(moment, " ", "_"), func(t *testing.T) {
			r := newRun(t, "", "demo", "-p", "--output-dir", t.TempDir()+"/out").withoutModel()
			r.start()
			pid := r.cmd.Process.Pid
			t.Cleanup(func() { removeLabelled(t, pid) })
			waitFor(t, &r.stderr, moment, 2*time.Minute)
			deadline := time.Now().Add(time.Minute)
			for containersOf(t, pid) == 0 { // the moment's object exists
				if time.Now().After(deadline) {
					t.Fatalf("no container of quarry %d after %q\nstderr:\n%s", pid, moment, r.stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			r.cmd.Process.Signal(syscall.SIGKILL)
			r.wait(time.Minute)
			if containersOf(t, pid) == 0 {
				t.Fatalf("quarry %d killed at %q left nothing to sweep: the test proves nothing", pid, moment)
			}
			next := newRun(t, "", "sandbox", "status").withoutModel()
			if code := next.exec(time.Minute); code != 0 {
				t.Fatalf("sandbox status: exit %d", code)
			}
			var said []string
			for _, line := range strings.Split(next.stderr.String(), "\n") {
				if strings.Contains(line, "left by earlier runs") {
					said = append(said, line)
				}
			}
			if len(said) != 1 || !strings.Contains(said[0], strconv.Itoa(pid)) {
				t.Errorf("the next start said %q, want one line naming quarry %d", said, pid)
			}
			requireNoContainers(t, pid)
		})
	}
}
