package sandboxtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// The cluster the Dask tests get: two workers that alone see the ledger,
// DuckDB's answer over it to check theirs against, workers that come back
// after a kill and after the scheduler restarts or stops and starts, and
// nothing left after down.
func TestDaskCluster(t *testing.T) {
	dir := DaskLedger(t)
	var facts struct{ Rows, Accounts, Months int }
	b, err := os.ReadFile(filepath.Join(dir, "ledger.json"))
	if err != nil || json.Unmarshal(b, &facts) != nil || facts.Rows != 25_000_000 {
		t.Fatalf("ledger.json: %s (%v)", b, err)
	}
	c := DaskCluster(t, dir)
	if w := c.Workers(); len(w) != 2 {
		t.Fatalf("workers %v", w)
	}
	c.WaitWorkers(t, 2)

	seen := c.Run(t, `import os
print(sorted(client.run(os.path.isdir, "/cluster/gl").values()), client.run_on_scheduler(os.path.isdir, "/cluster"))`)
	if strings.TrimSpace(seen) != "[True, True] False" {
		t.Fatalf("/cluster/gl on the workers, /cluster on the scheduler: %s; want only the workers to see it", seen)
	}

	rows := DuckDB(t, dir, "SELECT account, month, sum(cents) FROM read_parquet('/cluster/gl/*.parquet') GROUP BY ALL")
	if want := facts.Accounts * facts.Months; len(rows) != want || len(rows[0]) != 3 {
		t.Fatalf("DuckDB: %d rows (first %v), want %d of 3 columns", len(rows), rows[:min(len(rows), 1)], want)
	}

	c.Run(t, `client.publish_dataset(total=client.submit(sum, [1, 2]))`)
	if d, n := c.Datasets(t), c.Tasks(t); !slices.Equal(d, []string{"total"}) || n != 1 {
		t.Fatalf("datasets %v, %d tasks; want [total], 1", d, n)
	}

	c.KillWorker(t, 1)
	c.WaitWorkers(t, 1)
	c.StartWorker(t, 1)
	c.WaitWorkers(t, 2)

	c.RestartScheduler(t)
	c.WaitWorkers(t, 2)
	c.StopScheduler(t)
	c.StartScheduler(t)
	c.WaitWorkers(t, 2)
	if d, n := c.Datasets(t), c.Tasks(t); len(d) != 0 || n != 0 {
		t.Fatalf("after a restart: datasets %v, %d tasks; want none", d, n)
	}

	c.Down(t)
}
