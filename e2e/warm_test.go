package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// warmRun is a run whose warm-pool socket folder is rt.
func warmRun(t *testing.T, rt string, args ...string) *run {
	r := newRun(t, "", args...).withoutModel()
	r.env = append(r.env, "XDG_RUNTIME_DIR="+rt, "QUARRY_WARM=1")
	return r
}

// sessionsOf lists the session ids of quarry process pid's containers.
func sessionsOf(t *testing.T, pid int) []string {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: byPID(pid)})
	if err != nil {
		t.Fatalf("container list: %v", err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.Labels[engine.LabelSession])
	}
	return ids
}

// waitReadyCount waits until the holder has said "1 of 1 sandboxes ready"
// n times.
func waitReadyCount(t *testing.T, holder *run, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); strings.Count(holder.stderr.String(), "1 of 1 sandboxes ready") < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the holder did not get a sandbox ready (%d)\nstderr:\n%s", n, holder.stderr.String())
		}
	}
}

// Repeated -p runs take the sandboxes a holder started: each run its own,
// the holder refilling between them. A run killed while it holds one
// leaves it to the holder, which removes it; the holder killed leaves its
// sandboxes to the next start's sweep.
func TestWarmRunsTakeSandboxesStartedAhead(t *testing.T) {
	sandboxtest.Engine(t)
	rt := t.TempDir()
	holder := warmRun(t, rt, "sandbox", "warm", "--size", "1", "--idle", "2m")
	holder.start()
	hpid := holder.cmd.Process.Pid
	t.Cleanup(func() { removeLabelled(t, hpid) })

	var taken []string
	for i := 1; i <= 2; i++ {
		waitReadyCount(t, holder, i)
		ready := sessionsOf(t, hpid)
		if len(ready) != 1 {
			t.Fatalf("the holder of one has sandboxes %v", ready)
		}
		args := []string{"demo", "-p"}
		if i == 1 { // the second in ./quarry-output, which is not there yet
			args = append(args, "--output-dir", t.TempDir()+"/out")
		}
		r := warmRun(t, rt, args...)
		if code := r.exec(2 * time.Minute); code != 0 {
			t.Fatalf("run %d: exit %d\nstderr:\n%s", i, code, r.stderr.String())
		}
		if e := r.stderr.String(); !strings.Contains(e, "taking a warm sandbox") || strings.Contains(e, "starting the sandbox") {
			t.Fatalf("run %d started its own sandbox with one ready:\n%s", i, r.stderr.String())
		}
		if !strings.Contains(r.stdout.String(), "Cloud hosting") {
			t.Errorf("run %d: no answer:\n%s", i, r.stdout.String())
		}
		sandboxtest.RequireNothingLeft(t, engine.LabelSession+"="+ready[0])
		taken = append(taken, ready[0])
	}
	if taken[0] == taken[1] {
		t.Fatalf("two runs had sandbox %s", taken[0])
	}

	waitReadyCount(t, holder, 3)
	held := sessionsOf(t, hpid)[0]
	r := warmRun(t, rt, "demo", "-p", "--output-dir", t.TempDir()+"/out")
	r.start()
	waitFor(t, &r.stderr, "cell 1 running", 2*time.Minute)
	r.cmd.Process.Signal(syscall.SIGKILL)
	r.wait(time.Minute)
	label := engine.LabelSession + "=" + held
	for deadline := time.Now().Add(time.Minute); sandboxtest.Left(t, label) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sandbox of a killed run is still there after a minute")
		}
	}

	waitReadyCount(t, holder, 4)
	holder.cmd.Process.Signal(syscall.SIGKILL)
	holder.wait(time.Minute)
	if containersOf(t, hpid) == 0 {
		t.Fatal("the killed holder left nothing to sweep: the test proves nothing")
	}
	if code := newRun(t, "", "sandbox", "status").withoutModel().exec(time.Minute); code != 0 {
		t.Fatalf("sandbox status: exit %d", code)
	}
	requireNoContainers(t, hpid)
}

// A run with warm set and no holder starts one for the next runs; --stop
// ends it, and it removes what it held.
func TestWarmRunStartsAHolder(t *testing.T) {
	sandboxtest.Engine(t)
	rt := t.TempDir()
	r := warmRun(t, rt, "demo", "-p", "--output-dir", t.TempDir()+"/out")
	if code := r.exec(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, r.stderr.String())
	}
	var locks []string
	for deadline := time.Now().Add(30 * time.Second); len(locks) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no holder started")
		}
		locks, _ = filepath.Glob(filepath.Join(rt, "quarry-*", "warm-*.sock.lock"))
	}
	var hpid int
	for deadline := time.Now().Add(30 * time.Second); hpid == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder's lock names no process")
		}
		b, _ := os.ReadFile(locks[0])
		hpid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	t.Cleanup(func() {
		syscall.Kill(hpid, syscall.SIGKILL)
		removeLabelled(t, hpid)
	})
	for deadline := time.Now().Add(time.Minute); containersOf(t, hpid) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder started no sandbox")
		}
	}
	if code := warmRun(t, rt, "sandbox", "warm", "--stop").exec(time.Minute); code != 0 {
		t.Fatalf("--stop: exit %d", code)
	}
	for deadline := time.Now().Add(time.Minute); processRuns(hpid); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder did not stop")
		}
	}
	requireNoContainers(t, hpid)
}

// processRuns: pid exists and is no zombie (an exited holder whose parent
// run is gone waits for a reaper this machine may not have).
func processRuns(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
