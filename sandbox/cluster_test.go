package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
	"github.com/quarry-cli/quarry/source"
)

// The tests of this file run a real Dask cluster (scripts/dask-cluster.sh):
// a scheduler and two memory-limited workers, containers of the sandbox
// image on a network of their own, the workers reading a generated ledger
// larger than one worker's memory at /cluster/gl, which the sandbox does
// not see.

// clusterSession starts a sandbox connected to c with a result limit of max.
func clusterSession(t *testing.T, c *sandboxtest.Cluster, max int64) *sandbox.Session {
	t.Helper()
	d, err := source.ParseDask(source.DaskSpec{Address: c.Address, MaxResult: max})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := advSession(t, sandbox.Options{Cluster: d, Timeout: 5 * time.Minute})
	info, ok := s.ClusterInfo()
	if !ok || info.Error != "" || info.Workers != 2 {
		t.Fatalf("the sandbox's kernel did not connect to the test cluster: %+v", info)
	}
	return s
}

// ledgerByAccountMonth prints the reduction's rows as a count and a digest
// (a cell's output is capped, and 2,400 rows pass it), which RowsDigest
// computes alike from DuckDB's rows.
const ledgerByAccountMonth = `r = dd.read_parquet("/cluster/gl").groupby(["account", "month"]).cents.sum().compute()
import hashlib
lines = sorted("%s %s %d" % (a, m, int(v)) for (a, m), v in r.items())
print("ROWS", len(lines), "DIGEST", hashlib.sha256("\n".join(lines).encode()).hexdigest())
`

const duckLedgerByAccountMonth = `SELECT account, month, sum(cents) FROM read_parquet('/cluster/gl/*.parquet') GROUP BY ALL ORDER BY 1, 2`

// digestOf is the ROWS … DIGEST … line of a cell's output.
func digestOf(stdout string) string {
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "ROWS ") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// duckDigest is DuckDB's account × month over the same files, as digestOf
// reads the cluster's.
func duckDigest(t *testing.T, data string) string {
	t.Helper()
	return sandboxtest.RowsDigest(sandboxtest.DuckDB(t, data, duckLedgerByAccountMonth))
}

func sameRows(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: the cluster gives %q, DuckDB %q", what, got, want)
	}
}

// The ledger's account × month reduction, run on the cluster from a cell
// of the sandbox, equals DuckDB's over the same files; the sandbox sees
// neither the files nor any network but lo meanwhile.
func TestClusterLedgerMatchesDuckDB(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	var progress []string
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := s.Exec(ctx, ledgerByAccountMonth+"import os\nprint('SEES', os.path.exists('/cluster'), sorted(os.listdir('/sys/class/net')))", func(ch kernel.Chunk) {
		if ch.Stream == kernel.Progress {
			progress = append(progress, ch.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, res)
	// The cell said how the cluster's work went while it ran.
	if len(progress) == 0 || !strings.HasSuffix(progress[len(progress)-1], "tasks done on the Dask cluster") {
		t.Errorf("no progress from the cluster while the reduction ran: %q", progress)
	} else if last := progress[len(progress)-1]; progressDone.FindStringSubmatch(last) == nil || progressDone.FindStringSubmatch(last)[1] != progressDone.FindStringSubmatch(last)[2] {
		t.Errorf("the last progress line is not all tasks done: %q", last)
	}
	sameRows(t, "account × month", digestOf(res.Stdout), duckDigest(t, data))
	if !strings.Contains(res.Stdout, "SEES False ['lo']") {
		t.Errorf("the sandbox sees the cluster's files or a network: %s", lastLine(res.Stdout))
	}
}

// A worker killed while the reduction runs: the scheduler moves its tasks
// to the other worker and the answer is still right.
func TestClusterSurvivesAWorkerKilledMidComputation(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(3 * time.Second)
		c.KillWorker(t, 0)
	}()
	res := run(t, s, ledgerByAccountMonth)
	wg.Wait()
	mustOK(t, res)
	sameRows(t, "with a worker killed", digestOf(res.Stdout), duckDigest(t, data))
	c.StartWorker(t, 0)
}

// The scheduler stopped: a cell that needs it says so in words and the
// session keeps its variables; once it is back, the next cell works.
func TestClusterSchedulerStoppedAndRestarted(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	mustOK(t, run(t, s, "kept = 41\nprint(client.submit(lambda: 1).result())"))
	c.StopScheduler(t)
	res := run(t, s, "client.submit(lambda: 2).result(timeout=20)")
	if res.Error == nil {
		t.Fatalf("a cell ran on a stopped scheduler: %q", res.Stdout)
	}
	if strings.Contains(res.Error.Message, "Traceback") || res.Error.Kind == kernel.ErrCrashed {
		t.Errorf("the stopped scheduler was not said in words: %+v", res.Error)
	}
	c.StartScheduler(t)
	var out string
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		r := run(t, s, "print('BACK', client.submit(lambda: kept + 1).result(timeout=30))")
		if r.Error == nil {
			out = r.Stdout
			break
		}
		time.Sleep(3 * time.Second)
	}
	if !strings.Contains(out, "BACK 42") {
		t.Fatalf("the cluster did not come back for the session (kept variables): %q", out)
	}
}

// Ctrl+C (a cancelled Exec) stops the cell and cancels its tasks on the
// cluster: the scheduler is left holding none of them.
func TestClusterCancelledCellLeavesNoTask(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(4 * time.Second)
		cancel()
	}()
	res, err := s.Exec(ctx, "import time\ndef slow(i):\n    import time\n    time.sleep(60)\n    return i\nfs = client.map(slow, range(40))\nprint(sum(client.gather(fs)))", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Kind != kernel.ErrInterrupted {
		t.Fatalf("the cell was not interrupted: %+v", res.Error)
	}
	deadline := time.Now().Add(30 * time.Second)
	n := c.Tasks(t)
	for n > 0 && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		n = c.Tasks(t)
	}
	if n > 0 {
		t.Fatalf("the scheduler still holds %d tasks of the cancelled cell", n)
	}
	mustOK(t, run(t, s, "print(len(fs))"))
}

// Two sessions on one cluster: neither sees the other's variables or the
// datasets it published.
func TestClusterSessionsDoNotSeeEachOther(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	a := clusterSession(t, c, 0)
	b := clusterSession(t, c, 0)
	mustOK(t, run(t, a, "import pandas as pd\nsecret_total = 123\nx = client.persist(dd.from_pandas(pd.DataFrame({'v': range(10)}), npartitions=2))\nclient.publish_dataset(ledger=x)\nprint(client.list_datasets())"))
	res := run(t, b, "print('VAR', 'secret_total' in globals())\nprint('LIST', list(client.list_datasets()))\ntry:\n    client.get_dataset('ledger')\n    print('GOT it')\nexcept KeyError:\n    print('NOT found')")
	mustOK(t, res)
	for _, want := range []string{"VAR False", "LIST []", "NOT found"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("session b sees session a's things: want %q in\n%s", want, res.Stdout)
		}
	}
	res = run(t, a, "print('MINE', list(client.list_datasets()), int(client.get_dataset('ledger').v.sum().compute()))")
	mustOK(t, res)
	if !strings.Contains(res.Stdout, "MINE ['ledger'] 45") {
		t.Errorf("session a lost its own dataset: %s", res.Stdout)
	}
	if names := c.Datasets(t); len(names) != 1 || strings.HasSuffix(names[0], "/ledger") == false {
		t.Errorf("the scheduler's datasets: %v; want one, named within session a", names)
	}
}

// A compute whose result would pass the limit is refused before it comes
// back, with the way out; a small one on the same collection works.
func TestClusterRefusesAResultOverTheLimit(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 8<<20)
	res := run(t, s, `gl = dd.read_parquet("/cluster/gl")
gl.compute()`)
	if res.Error == nil || res.Error.Type != "ResultTooLarge" || !strings.Contains(res.Error.Message, "aggregate on the cluster first") {
		t.Fatalf("a whole ledger came back, or not in words: %+v", res.Error)
	}
	res = run(t, s, "print('N', int(gl.cents.count().compute()))")
	mustOK(t, res)
	if !strings.Contains(res.Stdout, "N ") {
		t.Errorf("a small result after the refusal: %s", res.Stdout)
	}
}

// variance(), explain() and pvm() on a dask DataFrame of the
// cluster's ledger give the numbers, to the cent, that they give on a
// pandas frame of the same rows.
func TestClusterVarianceMatchesPandas(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	res := run(t, s, `import pandas as pd
gl = dd.read_parquet(["/cluster/gl/part-%05d.parquet" % i for i in range(4)])  # a million rows: pandas holds them too
pdf = gl.compute().reset_index(drop=True)
def same(a, b):
    pd.testing.assert_frame_equal(pd.DataFrame(a).reset_index(drop=True), pd.DataFrame(b).reset_index(drop=True), check_dtype=False)
va = variance(gl[gl.scenario == "actual"], gl[gl.scenario == "budget"], by="account", value="cents")
vb = variance(pdf[pdf.scenario == "actual"], pdf[pdf.scenario == "budget"], by="account", value="cents")
same(va, vb)
print("SAME variance", len(vb))
pa = pvm(gl[gl.scenario == "actual"], gl[gl.scenario == "budget"], by="product", units="units", revenue="cents")
pb = pvm(pdf[pdf.scenario == "actual"], pdf[pdf.scenario == "budget"], by="product", units="units", revenue="cents")
same(pa, pb)
print("SAME pvm", len(pb))
same(explain(vb, gl, by="dept", amount="cents"), explain(vb, pdf, by="dept", amount="cents"))
print("SAME explain")
`)
	mustOK(t, res)
	for _, want := range []string{"SAME variance", "SAME pvm", "SAME explain"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("%s missing:\n%s", want, res.Stdout)
		}
	}
}

// progressDone is a progress line with every task done: "480 of 480 …".
var progressDone = regexp.MustCompile(`^(\d+) of (\d+) tasks`)

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// A dataset named for the cluster is profiled where the workers read it:
// its dtypes, partitions and row count, from a folder the sandbox does not
// see; a path the workers cannot read says so.
func TestClusterDatasetProfiledWhereTheWorkersRead(t *testing.T) {
	data := sandboxtest.DaskLedger(t)
	c := sandboxtest.DaskCluster(t, data)
	s := clusterSession(t, c, 0)
	want := sandboxtest.DuckDB(t, data, `SELECT count(*) FROM read_parquet('/cluster/gl/*.parquet')`)
	sets, err := s.ProfileClusterData(context.Background(), []sandbox.DataSpec{{Name: "gl", URL: "/cluster/gl"}, {Name: "nope", URL: "/cluster/missing"}}, true)
	if err != nil || len(sets) != 2 {
		t.Fatalf("%v %+v", err, sets)
	}
	gl := sets[0]
	if gl.Error != "" || gl.Format != "parquet" || gl.Partitions < 2 || fmt.Sprint(gl.Rows) != want[0][0] || len(gl.Head) == 0 {
		t.Errorf("the ledger's profile: %+v (DuckDB counts %v rows)", gl, want)
	}
	cols := map[string]string{}
	for _, c := range gl.Columns {
		cols[c[0]] = c[1]
	}
	if cols["cents"] != "int64" || cols["account"] == "" {
		t.Errorf("the ledger's dtypes: %v", cols)
	}
	if sets[1].Error == "" {
		t.Errorf("a folder no worker has was profiled: %+v", sets[1])
	}
}

// What the system prompt's cluster section tells the model it can call
// (dd's readers, dd.to_parquet, client, the FP&A calls on a dask frame)
// exists in a session with a cluster.
func TestClusterPromptPromisesHold(t *testing.T) {
	b, err := os.ReadFile(systemPrompt)
	if err != nil {
		t.Fatal(err)
	}
	_, section := splitClusterSection(t, string(b))
	names := codeCalls(section)
	for _, must := range []string{"dd.read_parquet", "dd.read_csv", "dd.to_parquet"} {
		if !slices.Contains(names, must) {
			t.Errorf("the cluster section no longer promises %s (found %v): keep this test in step", must, names)
		}
	}
	c := sandboxtest.DaskCluster(t, "")
	s := clusterSession(t, c, 0)
	var missing map[string]string
	runJSON(t, s, resolveNames(append(names, "client.compute", "variance", "explain", "pvm")), &missing)
	for name, why := range missing {
		t.Errorf("the cluster section promises %s, but in the sandbox: %s", name, why)
	}
}
