// Package hosttest gives tests the host programs, Python modules, files and
// npm packages they drive, from the one table scripts/host.tsv that
// scripts/install-deps.sh installs from and checks. A test asks for what it
// uses by name; a name the table lacks fails the test (add a row), and a
// missing one skips it with its Debian package named, or fails it in CI,
// where the scripts must have installed it. It imports nothing of quarry.
package hosttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Row is one line of scripts/host.tsv.
type Row struct {
	Kind    string // tool, python, path or npm
	Name    string
	Package string // the Debian package that provides it; for npm, name@version
	UsedBy  string
}

var (
	loadOnce sync.Once
	rows     []Row
	loadErr  error
)

// TablePath is scripts/host.tsv of this checkout.
func TablePath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "scripts", "host.tsv")
}

// Rows reads the table.
func Rows() ([]Row, error) {
	loadOnce.Do(func() { rows, loadErr = readTable(TablePath()) })
	return rows, loadErr
}

func readTable(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("host table: %w", err)
	}
	defer f.Close()
	var out []Row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields, got %d", path, n, len(f))
		}
		out = append(out, Row{f[0], f[1], f[2], f[3]})
	}
	return out, sc.Err()
}

func row(t testing.TB, kind, name string) Row {
	t.Helper()
	rs, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Kind == kind && r.Name == name {
			return r
		}
	}
	t.Fatalf("%s %s is not in scripts/host.tsv: add a row with its Debian package, so the scripts install it", kind, name)
	return Row{}
}

func missing(t testing.TB, r Row, what string) {
	t.Helper()
	from := "Debian's " + r.Package
	if r.Kind == "npm" {
		from = r.Package + " from the npm registry (scripts/install-npm.sh)"
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing: scripts/install-deps.sh test installs %s (scripts/host.tsv)", what, from)
	}
	t.Skipf("%s is missing: install %s (scripts/install-deps.sh test does)", what, from)
}

// Tool returns the path of a program in the table.
func Tool(t testing.TB, name string) string {
	t.Helper()
	r := row(t, "tool", name)
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); executable(p) {
			return p
		}
	}
	missing(t, r, name)
	return ""
}

// Python returns Debian's /usr/bin/python3 (not another python3 on PATH)
// once it imports every module.
func Python(t testing.TB, modules ...string) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if r := row(t, "tool", "python3"); !executable(py) {
		missing(t, r, py)
	}
	for _, m := range modules {
		r := row(t, "python", m)
		if out, err := exec.Command(py, "-c", "import "+m).CombinedOutput(); err != nil {
			missing(t, r, fmt.Sprintf("the host's Python module %s (%s)", m, strings.TrimSpace(lastLine(string(out)))))
		}
	}
	return py
}

// Path returns the first file the table's glob pattern names.
func Path(t testing.TB, pattern string) string {
	t.Helper()
	r := row(t, "path", pattern)
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		missing(t, r, pattern)
		return ""
	}
	return m[0]
}

// NPMDir is the folder scripts/install-npm.sh installs the npm rows into:
// QUARRY_NPM_DIR, else $XDG_CACHE_HOME/quarry/npm, else ~/.cache/quarry/npm.
func NPMDir() string {
	if d := os.Getenv("QUARRY_NPM_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "quarry", "npm")
}

// NPM returns the folder of the programs the npm packages of the table
// install (node_modules/.bin, which also holds the Node the packages run
// on: put it first on PATH), once the package is there at its pinned
// version.
func NPM(t testing.TB, name string) string {
	t.Helper()
	r := row(t, "npm", name)
	want := r.Package[strings.LastIndex(r.Package, "@")+1:]
	b, err := os.ReadFile(filepath.Join(NPMDir(), "node_modules", name, "package.json"))
	var pkg struct{ Version string }
	if err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != want {
		missing(t, r, fmt.Sprintf("npm package %s %s in %s", name, want, NPMDir()))
	}
	return filepath.Join(NPMDir(), "node_modules", ".bin")
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
