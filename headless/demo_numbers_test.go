package headless_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// The first answer quarry shows marks none of its own numbers: every
// number of the demo's report, its table's included (a "change" column
// beside a "change %" one), is grounded in the cell it came from.
func TestDemoNumbersAllGrounded(t *testing.T) {
	sandboxtest.Engine(t)
	out := filepath.Join(t.TempDir(), "demo")
	r := newRun(t, "", "demo", "-p", "--json", "--output-dir", out).withoutModel().inHome(t.TempDir())
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	var doc numbersDoc
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout.String())
	}
	if len(doc.Numbers) < 20 {
		t.Fatalf("%d numbers checked, want the report's 22:\n%s", len(doc.Numbers), doc.Answer)
	}
	for _, n := range doc.Numbers {
		if !n.Grounded || n.Cell == nil || n.Source == nil {
			t.Errorf("%q is not grounded in a cell: %+v", n.Text, n)
		}
	}
	if doc.Unverified != 0 {
		t.Errorf("unverified %d, want 0", doc.Unverified)
	}
}
