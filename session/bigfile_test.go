package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// ledgerRows is the size of the 1.6 GB general ledger the test makes;
// QUARRY_LEDGER_ROWS shrinks it while iterating on the test itself.
func ledgerRows(t *testing.T) int64 {
	if v := os.Getenv("QUARRY_LEDGER_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			t.Fatalf("QUARRY_LEDGER_ROWS=%q: want a number of rows", v)
		}
		return n
	}
	return 16_000_000
}

// A ledger export far larger than pandas could load in the sandbox's
// default 2 GiB gets its total and per-account sums through sql(), the
// model (faked at the HTTP level) writing the calls the prompt teaches.
func TestLedgerLargerThanMemoryAnsweredWithSQL(t *testing.T) {
	e := sandboxtest.Engine(t)
	if testing.Short() {
		t.Skip("writes and attaches a 1.6 GB file")
	}
	rows := ledgerRows(t)
	t0 := time.Now()
	lg, err := sandboxtest.WriteLedger(filepath.Join(t.TempDir(), "ledger.csv"), rows, 2026)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ledger: %d rows, %.2f GB written in %s", lg.Rows, float64(lg.Bytes)/1e9, time.Since(t0).Round(time.Millisecond))

	total := `sql("CREATE OR REPLACE VIEW ledger AS SELECT * FROM read_csv('/data/ledger.csv', types={'amount_eur': 'DECIMAL(18,2)'})")
t = sql("SELECT sum(amount_eur) AS total, count(*) AS n FROM ledger")
print('TOTAL %.2f ROWS %d' % (t.total[0], t.n[0]))`
	byAccount := `import resource
a = sql("SELECT account, sum(amount_eur) AS total FROM ledger GROUP BY account ORDER BY account")
for acct, s in zip(a.account, a.total):
    print('ACCOUNT %d %.2f' % (acct, s))
print('PEAK_RSS_MIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)`
	srv := openaitest.New(t,
		openaitest.ToolCalls(total), openaitest.Text("The ledger total is in the output."),
		openaitest.ToolCalls(byAccount), openaitest.Text("Per account, see the table."),
	)
	cfg := testConfig(srv.URL, t.TempDir())
	cfg.Memory, cfg.CPUs, cfg.Timeout = 2<<30, 2, 5*time.Minute
	var mu sync.Mutex
	var progress strings.Builder // written from the sandbox's goroutine
	s := New(Options{Config: cfg, Engine: e, Events: func(ev agent.Event) {
		if ev.Kind == agent.EventProgress {
			mu.Lock()
			progress.WriteString(ev.Text + "\n")
			mu.Unlock()
		}
	}})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	p, err := s.Attach(ctx, lg.Path)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	attach := time.Since(t1)
	t.Logf("attach (copy and profile): %s; profile error %q; progress shown:\n%s", attach.Round(time.Millisecond),
		p.Error, func() string { mu.Lock(); defer mu.Unlock(); return progress.String() }())

	t2 := time.Now()
	if _, err := s.Ask(ctx, "what is the ledger total?", nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("total: %s", time.Since(t2).Round(time.Millisecond))
	reqs := srv.ChatRequests()
	out := reqs[len(reqs)-1].LastToolResult()
	if want := fmt.Sprintf("TOTAL %s ROWS %d", sandboxtest.Cents(lg.TotalCents), lg.Rows); !strings.Contains(out, want) {
		t.Fatalf("the cell's output lacks %q:\n%s", want, out)
	}

	t3 := time.Now()
	if _, err := s.Ask(ctx, "and per account?", nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("per account: %s", time.Since(t3).Round(time.Millisecond))
	reqs = srv.ChatRequests()
	out = reqs[len(reqs)-1].LastToolResult()
	for acct, cents := range lg.ByAccount {
		if want := fmt.Sprintf("ACCOUNT %d %s\n", acct, sandboxtest.Cents(cents)); !strings.Contains(out, want) {
			t.Errorf("the cell's output lacks %q", strings.TrimSpace(want))
		}
	}
	if m := regexp.MustCompile(`PEAK_RSS_MIB (\d+)`).FindStringSubmatch(out); m != nil {
		t.Logf("kernel peak RSS: %s MiB (sandbox limit 2048 MiB)", m[1])
	} else {
		t.Errorf("no peak memory in the output:\n%s", out)
	}
}
