package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A session continued in its folder: a replay rebuilds the variables and
// writes nothing to the host, figure numbers go on after the earlier
// cells, a file of the earlier run is replaced, a file under another name
// is read where the code expects the old one.
func TestContinueInEarlierFolder(t *testing.T) {
	e := sandboxtest.Engine(t)
	dir := filepath.Join(t.TempDir(), "session")
	os.MkdirAll(filepath.Join(dir, "figures"), 0o700)
	os.WriteFile(filepath.Join(dir, "figures", "cell1-1.png"), []byte("earlier figure"), 0o600)
	os.WriteFile(filepath.Join(dir, "variance.csv"), []byte("earlier"), 0o600)
	os.WriteFile(filepath.Join(dir, "session.jsonl"), []byte("{}\n"), 0o600)
	newer := filepath.Join(t.TempDir(), "q3.csv")
	os.WriteFile(newer, []byte("region,revenue\nNorth,7\n"), 0o644)

	s := sandboxtest.Session(t, e, sandbox.Options{OutputDir: dir, Earlier: &sandbox.Earlier{
		Cells: 2,
		Files: []kernel.File{{Name: "variance.csv", Size: 7}},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := s.AddFileAs(ctx, newer, "q1.csv", nil); err != nil {
		t.Fatal(err)
	}
	res, err := s.Replay(ctx, 2, "import pandas as pd\ndf = pd.read_csv('/data/q1.csv')\ndf.to_csv('variance.csv')\ndf.plot()\nprint(len(df))")
	if err != nil || res.Error != nil || strings.TrimSpace(res.Stdout) != "1" {
		t.Fatalf("replay: %+v, %v", res, err)
	}
	if len(res.Figures) != 0 || len(res.Files) != 0 {
		t.Errorf("a replay harvested %+v %+v", res.Figures, res.Files)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "variance.csv")); string(b) != "earlier" {
		t.Errorf("a replay wrote to the host: variance.csv is %q", b)
	}
	res, err = s.Exec(ctx, "df['revenue'] = df.revenue * 2\ndf.to_csv('variance.csv', index=False)\ndf.plot(); df.revenue.sum()", nil)
	if err != nil || res.Error != nil {
		t.Fatalf("exec: %+v, %v", res, err)
	}
	if len(res.Figures) != 1 || res.Figures[0].Name != "figures/cell3-1.png" {
		t.Errorf("figures %+v, want figures/cell3-1.png after 2 earlier cells", res.Figures)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "variance.csv")); string(b) != "region,revenue\nNorth,14\n" {
		t.Errorf("the earlier run's file was not replaced: %q (notes %q)", b, res.Notes)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "figures", "cell1-1.png")); string(b) != "earlier figure" {
		t.Errorf("an earlier figure changed: %q", b)
	}
	if _, err := s.AddFileAs(ctx, newer, "../q1.csv", nil); err == nil {
		t.Error("a /data name with a slash was accepted")
	}
}

// A traceback names the code by the user's cell number, not by the
// protocol's request id (which attached files and profiles also take).
func TestTracebackNamesTheCellNumber(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in := filepath.Join(t.TempDir(), "q1.csv")
	os.WriteFile(in, []byte("region,revenue\nNorth,7\n"), 0o644)
	for _, name := range []string{"q1.csv", "q2.csv"} {
		if _, err := s.AddFileAs(ctx, in, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Replay(ctx, 7, "x = 1\n{}['nope']")
	if err != nil || res.Error == nil {
		t.Fatalf("replay: %+v, %v", res, err)
	}
	if !strings.Contains(res.Error.Traceback, `"<cell-7>", line 2`) {
		t.Errorf("replayed cell 7's traceback:\n%s", res.Error.Traceback)
	}
	res, err = s.Exec(ctx, "import pandas as pd\n\npd.read_csv('/data/q1.csv')['nope']", nil)
	if err != nil || res.Error == nil {
		t.Fatalf("exec: %+v, %v", res, err)
	}
	if !strings.Contains(res.Error.Traceback, `"<cell-1>", line 3`) {
		t.Errorf("cell 1's traceback:\n%s", res.Error.Traceback)
	}
}
