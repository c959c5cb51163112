package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// Ctrl+C while doctor's test sandbox runs: the sandbox is removed and the
// exit status is 130, as everywhere else.
func TestDoctorInterruptedRemovesSandbox(t *testing.T) {
	sandboxtest.Engine(t)
	isolateConfig(t)
	bin := filepath.Join(t.TempDir(), "quarry")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/quarry-cli/quarry").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "doctor")
	var stdout lockedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { removeContainersOfPID(t, pid) })
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stdout.String(), "sandbox image:") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// Interrupt as soon as doctor's container exists: its kernel is still
	// starting (a fixed sleep raced the start, now well under a second).
	for len(containersOfPID(t, pid)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("doctor still running a minute after SIGINT")
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if left := containersOfPID(t, pid); len(left) != 0 {
		t.Errorf("doctor left %d container(s) behind: %s", len(left), strings.Join(left, "; "))
	}
}

func containersOfPID(t *testing.T, pid int) []string {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", fmt.Sprintf("io.quarry.pid=%d", pid))})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list.Items {
		ids = append(ids, strings.Join(c.Names, ",")+" ("+c.ID[:12]+", "+string(c.State)+")")
	}
	return ids
}

// removeContainersOfPID removes what the test's own child left, so a
// failing run does not leak into the engine others share.
func removeContainersOfPID(t *testing.T, pid int) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return
	}
	defer cli.Close()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", fmt.Sprintf("io.quarry.pid=%d", pid))})
	if err != nil {
		return
	}
	for _, c := range list.Items {
		cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
