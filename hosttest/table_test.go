package hosttest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// base are the programs every Debian system has (its Essential packages),
// the Go toolchain, and the engines, which scripts/ensure-docker.sh and
// ensure-podman.sh set up: tests may call them without a row.
var base = []string{"sh", "bash", "true", "false", "touch", "tar", "env", "chroot", "runuser", "kill", "sleep",
	"cat", "ls", "id", "go", "docker", "podman", "debootstrap"}

var (
	// exec.Command("x", exec.CommandContext(ctx, "x", exec.LookPath("x")
	execCall = regexp.MustCompile(`exec\.(?:Command\(|CommandContext\([a-zA-Z.()]+, |LookPath\()"([^"/ ]+)"`)
	// hosttest.Tool(t, "x"), hosttest.Python(t, "a", "b"), hosttest.Path(t, "p"), hosttest.NPM(t, "n")
	hostCall = regexp.MustCompile(`hosttest\.(Tool|Python|Path|NPM)\([a-z]+((?:, "[^"]+")+)\)`)
	quoted   = regexp.MustCompile(`"([^"]+)"`)
)

// The table is what the tests use: every program a test runs by name,
// every name a test asks hosttest for and every module outside Python's
// standard library that the tests' Python imports on the host (hostImports)
// is a row (or a base program), and
// every row is named by some test (a test helper package counts), so the
// scripts install exactly what the suites need.
func TestTableMatchesTheTests(t *testing.T) {
	rs, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"Tool": "tool", "Python": "python", "Path": "path", "NPM": "npm"}
	have := map[string]bool{}
	for _, r := range rs {
		if r.Package == "" || r.UsedBy == "" {
			t.Errorf("row %s %s: want its Debian package and who uses it", r.Kind, r.Name)
		}
		have[r.Kind+" "+r.Name] = true
	}
	asked := map[string]bool{}
	root := filepath.Clean(filepath.Join(filepath.Dir(TablePath()), ".."))
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		helper := strings.HasSuffix(filepath.Dir(path), "test") && strings.HasSuffix(path, ".go") // sandboxtest, pgtest…
		if !strings.HasSuffix(path, "_test.go") && !helper || filepath.Base(filepath.Dir(path)) == "hosttest" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range execCall.FindAllStringSubmatch(string(b), -1) {
			if !have["tool "+m[1]] && !slices.Contains(base, m[1]) {
				t.Errorf("%s runs %s, which scripts/host.tsv lacks: add a row (and ask for it with hosttest.Tool)", rel, m[1])
			}
			asked["tool "+m[1]] = true
		}
		for _, m := range hostCall.FindAllStringSubmatch(string(b), -1) {
			for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
				key := kinds[m[1]] + " " + q[1]
				if !have[key] {
					t.Errorf("%s asks for %s, which scripts/host.tsv lacks", rel, key)
				}
				asked[key] = true
			}
		}
		for _, r := range rs {
			if strings.Contains(string(b), `"`+r.Name+`"`) {
				asked[r.Kind+" "+r.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	std := stdlib(t)
	for m, where := range hostImports(t, root) {
		if std[m] {
			continue
		}
		if !have["python "+m] {
			t.Errorf("%s imports %s in the host's Python, which scripts/host.tsv lacks: add a python row with its Debian package", where, m)
		}
		asked["python "+m] = true
	}
	for _, r := range rs {
		if !asked[r.Kind+" "+r.Name] {
			t.Errorf("scripts/host.tsv has %s %s, which no test asks for: remove the row, or ask for it with hosttest", r.Kind, r.Name)
		}
	}
}

// A name the table lacks is a mistake in the test, said as such.
func TestReadTable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "host.tsv")
	os.WriteFile(p, []byte("# comment\ntool\ttmux\ttmux\tchat tests\npython\tjinja2\tpython3-jinja2\n"), 0o644)
	if _, err := readTable(p); err == nil || !strings.Contains(err.Error(), ":3: want 4") {
		t.Fatalf("a short row: %v", err)
	}
}
