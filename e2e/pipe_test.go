package e2e

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// `quarry -p ... | true` and `quarry -p ... 2>&1 | head -1`: the reader of
// stdout or stderr is gone. Go's default SIGPIPE on fd 1 or 2 would kill
// quarry at its next write, skipping the removal of the container.
func TestClosedPipeLeavesNoContainer(t *testing.T) {
	sandboxtest.Engine(t)
	for _, stream := range []string{"stdout", "stderr"} {
		t.Run(stream, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.ToolCalls("print(6 * 7)"), openaitest.Text("The answer is 42."))
			q1, _ := writeQuarters(t, t.TempDir())
			r := newRun(t, srv.URL, "-p", "x", q1)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close() // nobody will ever read
			defer pw.Close()
			cmd := exec.Command(quarryBin(t), r.args...)
			cmd.Env, cmd.Dir = r.env, r.dir
			if stream == "stdout" {
				cmd.Stdout, cmd.Stderr = pw, &r.stderr
			} else {
				cmd.Stdout, cmd.Stderr = &r.stdout, pw
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(3 * time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatal("quarry still running after 3 minutes")
			}
			t.Logf("exit %v\nstderr:\n%s", cmd.ProcessState, r.stderr.String())
			if cmd.ProcessState.ExitCode() < 0 {
				t.Errorf("quarry was killed by a signal: %v", cmd.ProcessState)
			}
			requireNoContainers(t, cmd.Process.Pid)
		})
	}
}
