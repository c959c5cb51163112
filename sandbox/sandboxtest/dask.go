package sandboxtest

// A test Dask cluster of sandbox containers, the general ledger to give
// it and DuckDB's answers over that ledger, all made by
// scripts/dask-cluster.sh, which this file drives.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
)

// Cluster is a running test cluster: a scheduler and its workers on a
// network of their own, every object labelled quarry.dask=Name and with
// this process's io.quarry.pid.
type Cluster struct {
	Name    string
	Address string // tcp://127.0.0.1:PORT, the scheduler as the host reaches it
	Network string
	workers int
}

// daskWorkers is the cluster's size, the script's default.
const daskWorkers = 2

var clusterSeq atomic.Int64

// DaskCluster starts a cluster of two workers, which alone see data (a
// folder, or "" for none) read-only at /cluster, and removes it when the
// test ends. Without an engine or the image it skips, or fails in CI.
func DaskCluster(t testing.TB, data string) *Cluster {
	t.Helper()
	engineAndCLI(t)
	name := fmt.Sprintf("t%d-%d", os.Getpid(), clusterSeq.Add(1))
	c := &Cluster{Name: name, Network: "quarry-dask-" + name, workers: daskWorkers}
	t.Cleanup(func() {
		if _, err := runScript(time.Minute, "down", "--name", name); err != nil {
			t.Errorf("dask cluster %s: %v", name, err)
		}
	})
	args := []string{"up", "--name", name, "--workers", strconv.Itoa(daskWorkers), "--image", image.Ref(), "--label", pidLabel()}
	if data != "" {
		args = append(args, "--data", data)
	}
	out, err := runScript(3*time.Minute, args...)
	if err != nil {
		t.Fatalf("dask cluster %s: %v", name, err)
	}
	c.Address = strings.TrimSpace(out)
	if !strings.HasPrefix(c.Address, "tcp://127.0.0.1:") {
		t.Fatalf("dask cluster %s: up printed %q, want tcp://127.0.0.1:PORT", name, out)
	}
	return c
}

// Label is what every object of the cluster carries, for RequireNothingLeft.
func (c *Cluster) Label() string { return "quarry.dask=" + c.Name }

// Scheduler is the scheduler's container.
func (c *Cluster) Scheduler() string { return c.Network + "-scheduler" }

// Workers are the workers' containers, in order.
func (c *Cluster) Workers() []string {
	w := make([]string, c.workers)
	for i := range w {
		w[i] = fmt.Sprintf("%s-worker-%d", c.Network, i)
	}
	return w
}

// KillWorker kills worker i with SIGKILL, as the OOM killer would; it
// stays down until StartWorker.
func (c *Cluster) KillWorker(t testing.TB, i int) {
	t.Helper()
	c.docker(t, "kill", c.Workers()[i])
}

// StartWorker starts worker i again; WaitWorkers waits for it to join.
func (c *Cluster) StartWorker(t testing.TB, i int) {
	t.Helper()
	c.docker(t, "start", c.Workers()[i])
}

// RestartScheduler restarts the scheduler (its tasks and datasets are
// lost) and waits until it takes clients; the workers come back by
// themselves (WaitWorkers).
func (c *Cluster) RestartScheduler(t testing.TB) {
	t.Helper()
	c.docker(t, "restart", "-t", "2", c.Scheduler())
	c.Run(t, "")
}

// StopScheduler stops the scheduler; the workers keep trying to reach it.
func (c *Cluster) StopScheduler(t testing.TB) {
	t.Helper()
	c.docker(t, "stop", "-t", "2", c.Scheduler())
}

// StartScheduler starts a stopped scheduler, on the same port, and waits
// until it takes clients; the workers come back by themselves.
func (c *Cluster) StartScheduler(t testing.TB) {
	t.Helper()
	c.docker(t, "start", c.Scheduler())
	c.Run(t, "")
}

// WaitWorkers waits up to two minutes until the scheduler has exactly n
// workers.
func (c *Cluster) WaitWorkers(t testing.TB, n int) {
	t.Helper()
	out := c.Run(t, fmt.Sprintf(`import time
deadline = time.monotonic() + 120
while len(client.scheduler_info()["workers"]) != %d and time.monotonic() < deadline:
    time.sleep(0.5)
print(len(client.scheduler_info()["workers"]))`, n))
	if strings.TrimSpace(out) != strconv.Itoa(n) {
		t.Fatalf("dask cluster %s: %s workers after 2 minutes, want %d", c.Name, strings.TrimSpace(out), n)
	}
}

// Tasks is the number of tasks the scheduler holds now.
func (c *Cluster) Tasks(t testing.TB) int {
	t.Helper()
	out := c.Run(t, `print(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)))`)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("dask cluster %s: tasks: %q", c.Name, out)
	}
	return n
}

// Datasets are the names of the scheduler's published datasets, sorted.
func (c *Cluster) Datasets(t testing.TB) []string {
	t.Helper()
	out := c.Run(t, `import json
print(json.dumps(sorted(str(n) for n in client.list_datasets())))`)
	var names []string
	if err := json.Unmarshal([]byte(out), &names); err != nil {
		t.Fatalf("dask cluster %s: datasets: %q: %v", c.Name, out, err)
	}
	return names
}

// Run runs py in a python3 in the scheduler's container with client, a
// distributed.Client of the scheduler, and returns what it printed.
func (c *Cluster) Run(t testing.TB, py string) string {
	t.Helper()
	src := "from distributed import Client\nclient = Client('tcp://127.0.0.1:8786', timeout=60)\n" + py + "\nclient.close()\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", "exec", "-i", c.Scheduler(), "python3", "-")
	cmd.Stdin = strings.NewReader(src)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dask cluster %s: python: %v\n%s\nstderr:\n%s", c.Name, err, py, stderr.String())
	}
	return stdout.String()
}

func (c *Cluster) docker(t testing.TB, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput(); err != nil {
		t.Fatalf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// Down removes the cluster now (the test's cleanup does it too) and fails
// the test when a container, volume or network of it is left.
func (c *Cluster) Down(t testing.TB) {
	t.Helper()
	if _, err := runScript(time.Minute, "down", "--name", c.Name); err != nil {
		t.Fatalf("dask cluster %s: %v", c.Name, err)
	}
	RequireNothingLeft(t, c.Label())
}

// The Parquet ledger, made by the first test that asks and kept for the
// rest of the test binary when its TestMain runs through Main.
var daskLedger struct {
	mu     sync.Mutex
	shared bool // Main removes it at the end
	dir    string
	err    error
}

// Main runs the tests and then removes what the helpers kept for all of
// them (the DaskLedger):
//
//	func TestMain(m *testing.M) { os.Exit(sandboxtest.Main(m)) }
func Main(m *testing.M) int {
	daskLedger.mu.Lock()
	daskLedger.shared = true
	daskLedger.mu.Unlock()
	code := m.Run()
	daskLedger.mu.Lock()
	defer daskLedger.mu.Unlock()
	if daskLedger.dir != "" {
		os.RemoveAll(daskLedger.dir)
	}
	return code
}

// DaskLedger returns a folder holding the generated general ledger
// (scripts/dask-cluster.sh ledger: gl/part-*.parquet, 25 M rows, and
// ledger.json with its facts), readable by the sandbox's user. It is made
// once per test binary when TestMain runs through Main, else in each
// test's t.TempDir.
func DaskLedger(t testing.TB) string {
	t.Helper()
	engineAndCLI(t)
	daskLedger.mu.Lock()
	defer daskLedger.mu.Unlock()
	if !daskLedger.shared {
		dir := t.TempDir()
		if err := writeParquetLedger(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if daskLedger.dir == "" && daskLedger.err == nil {
		daskLedger.dir, daskLedger.err = os.MkdirTemp("", "quarry-dask-ledger-")
		if daskLedger.err == nil {
			daskLedger.err = writeParquetLedger(daskLedger.dir)
		}
	}
	if daskLedger.err != nil {
		t.Fatal(daskLedger.err)
	}
	return daskLedger.dir
}

func writeParquetLedger(dir string) error {
	// The workers run as uid 1000: the folder must be theirs to enter.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if _, err := runScript(5*time.Minute, "ledger", "--out", dir, "--image", image.Ref(), "--label", pidLabel()); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// DuckDB runs sql with the kernel's DuckDB over data at /cluster and
// returns the result's rows as CSV gives them (no header).
func DuckDB(t testing.TB, data, sql string) [][]string {
	t.Helper()
	engineAndCLI(t)
	out, err := runScript(3*time.Minute, "duckdb", "--data", data, "--sql", sql, "--image", image.Ref(), "--label", pidLabel())
	if err != nil {
		t.Fatalf("duckdb %q: %v", sql, err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("duckdb %q: the CSV: %v\n%s", sql, err, out)
	}
	if len(rows) == 0 {
		return nil
	}
	return rows[1:]
}

// engineAndCLI is Engine plus the docker CLI, which the script drives.
func engineAndCLI(t testing.TB) {
	t.Helper()
	if e := Engine(t); e.Kind() != engine.Docker {
		// CI runs these on Docker; the Podman runs hold the relay to its
		// own test (TestRelayReachesOnlyTheConfiguredScheduler).
		t.Skipf("the test Dask cluster runs on Docker (scripts/dask-cluster.sh drives the docker CLI); this engine is %s", e.Kind())
	}
	if _, err := exec.LookPath("docker"); err != nil {
		unavailable(t, "scripts/dask-cluster.sh needs the docker CLI on PATH")
	}
}

// pidLabel marks objects as this test process's, as quarry marks its own,
// so the checks for what a process left behind see them.
func pidLabel() string { return engine.LabelPID + "=" + strconv.Itoa(os.Getpid()) }

// runScript runs scripts/dask-cluster.sh and returns its stdout; an error
// carries its stderr, where it says what went wrong.
func runScript(timeout time.Duration, args ...string) (string, error) {
	script, err := daskScript()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Args = append(cmd.Args, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dask-cluster.sh %s: %v\n%s", args[0], err, stderr.String())
	}
	return stdout.String(), nil
}

// daskScript finds scripts/dask-cluster.sh in the module root above the
// test's working folder.
func daskScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "dask-cluster.sh"), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working folder: scripts/dask-cluster.sh not found")
		}
		dir = up
	}
}

// RowsDigest is rows (DuckDB's, say) as a cell prints a grouped result it
// cannot print whole: "ROWS n DIGEST sha256" of the rows' lines, each its
// fields joined by spaces, sorted, joined by newlines.
func RowsDigest(rows [][]string) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, " ")
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return fmt.Sprintf("ROWS %d DIGEST %s", len(lines), hex.EncodeToString(sum[:]))
}
