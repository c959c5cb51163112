package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// End to end on the test cluster (a scheduler and
// two workers, the ledger at /cluster/gl that only the workers mount):
// quarry -p --dask and quarry mcp --dask (through the official Inspector)
// each run the model's, or the client's, Dask code on the cluster and
// answer what DuckDB answers over the same files, the sandbox's
// interfaces still lo only.
const daskCell = `r = dd.read_parquet("/cluster/gl").groupby(["account", "month"]).cents.sum().compute()
import hashlib
lines = sorted("%s %s %d" % (a, m, int(v)) for (a, m), v in r.items())
print("ROWS", len(lines), "DIGEST", hashlib.sha256("\n".join(lines).encode()).hexdigest())
import os
print("IFACES", ",".join(sorted(os.listdir("/sys/class/net"))))`

var (
	ifacesLine = regexp.MustCompile(`IFACES (\S+)`)
	digestLine = regexp.MustCompile(`ROWS \d+ DIGEST [0-9a-f]+`)
)

func TestDaskClusterAnswersHeadlessAndMCP(t *testing.T) {
	sandboxtest.Engine(t)
	data := sandboxtest.DaskLedger(t)
	cluster := sandboxtest.DaskCluster(t, data)
	want := sandboxtest.RowsDigest(sandboxtest.DuckDB(t, data, `SELECT account, month, sum(cents) FROM read_parquet('/cluster/gl/*.parquet') GROUP BY ALL`))
	check := func(t *testing.T, out string) {
		t.Helper()
		if m := digestLine.FindString(out); m != want {
			t.Fatalf("the cluster gives %q, DuckDB %q:\n%s", m, want, lastChars(out, 2000))
		}
		if m := ifacesLine.FindStringSubmatch(out); m == nil || m[1] != "lo" {
			t.Errorf("the sandbox's interfaces are not lo only: %v", m)
		}
	}

	t.Run("headless", func(t *testing.T) {
		model := openaitest.New(t, openaitest.ToolCalls(daskCell), openaitest.Text("The ledger by account and month is above."))
		r := newRun(t, model.URL, "-p", "total cents of the general ledger at /cluster/gl by account and month", "--dask", cluster.Address, "--dask-data", "gl=/cluster/gl", "--json")
		if c := r.exec(5 * time.Minute); c != 0 {
			t.Fatalf("exit %d\n%s", c, r.stderr.String())
		}
		var res struct {
			Session string
			Cells   []struct{ Stdout string }
		}
		if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil || len(res.Cells) != 1 {
			t.Fatalf("--json: %v\n%s", err, r.stdout.String())
		}
		check(t, res.Cells[0].Stdout)
		// The model was told of the cluster, by its address and what it has.
		sys := model.ChatRequests()[0].System()
		if !strings.Contains(sys, "Dask cluster is connected: "+cluster.Address+", 2 workers") {
			t.Errorf("the system prompt does not say the cluster:\n%s", sys)
		}
		// The dataset named was profiled where the workers read it.
		rows := sandboxtest.DuckDB(t, data, `SELECT count(*) FROM read_parquet('/cluster/gl/*.parquet')`)
		if want := "- dataset gl: `dd.read_parquet(\"/cluster/gl\")`, "; !strings.Contains(sys, want) || !strings.Contains(sys, rows[0][0]+" rows") || !strings.Contains(sys, "cents (int64)") {
			t.Errorf("the system prompt does not show the cluster's dataset (%s rows):\n%s", rows[0][0], sys)
		}
		sandboxtest.RequireNothingLeft(t, "io.quarry.session="+res.Session)
	})

	t.Run("mcp", func(t *testing.T) {
		bin, env := npmTools(t, "@modelcontextprotocol/inspector")
		root := t.TempDir()
		cmd := exec.Command(filepath.Join(bin, "mcp-inspector"), "--cli", "--method", "tools/call", "--tool-name", "run_python",
			"--tool-arg", "code="+daskCell, "--", quarryBin(t), "mcp", "--root", root, "--output-dir", t.TempDir(), "--dask", cluster.Address)
		cmd.Env = append(env, "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector: %v\n%s\n%s", err, out, stderr.String())
		}
		var r inspectorResult
		if err := json.Unmarshal(out, &r); err != nil || r.IsError || len(r.Content) == 0 {
			t.Fatalf("run_python: %v %+v\n%s", err, r, stderr.String())
		}
		check(t, r.Content[0].Text)
	})
}
