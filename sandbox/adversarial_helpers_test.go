package sandbox_test

// Helpers for the adversarial suite (adversarial_*_test.go): every case runs
// hostile Python in a real container through the sandbox API and asserts
// what came out. Cells report through one "QJSON {...}" line on stdout.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// advSession starts a session for an adversarial case and returns it with its
// host output folder.
func advSession(t *testing.T, opts sandbox.Options) (*sandbox.Session, string) {
	t.Helper()
	e := sandboxtest.Engine(t)
	if opts.OutputDir == "" {
		opts.OutputDir = filepath.Join(t.TempDir(), "out")
	}
	return sandboxtest.Session(t, e, opts), opts.OutputDir
}

// run executes one cell; a sandbox failure (not a code failure) fails the test.
func run(t *testing.T, s *sandbox.Session, code string) kernel.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := s.Exec(ctx, code, nil)
	if err != nil {
		t.Fatalf("exec: %v\ncode:\n%s", err, code)
	}
	return res
}

// runJSON executes a cell that prints one line "QJSON <json>" and decodes it into v.
func runJSON(t *testing.T, s *sandbox.Session, code string, v any) kernel.Result {
	t.Helper()
	res := run(t, s, "import json as _qj\n"+code)
	for _, line := range strings.Split(res.Stdout, "\n") {
		if j, ok := strings.CutPrefix(line, "QJSON "); ok {
			if err := json.Unmarshal([]byte(j), v); err != nil {
				t.Fatalf("decode cell report: %v\n%s", err, j)
			}
			return res
		}
	}
	t.Fatalf("cell printed no QJSON line\nstdout: %.2000s\nstderr: %.2000s\nerror: %+v", res.Stdout, res.Stderr, res.Error)
	return res
}

// report is the Python line that ends a runJSON cell.
const report = "\nprint('QJSON ' + _qj.dumps(out))\n"

func mustOK(t *testing.T, res kernel.Result) {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("cell failed: %+v\nstdout: %.2000s\nstderr: %.2000s", *res.Error, res.Stdout, res.Stderr)
	}
}

// hostTree lists what the host output folder holds: relative name -> mode.
func hostTree(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	out := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = fi.Mode()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk host output folder: %v", err)
	}
	return out
}

// assertHostTreeSafe checks the invariant of every harvest: only regular
// files and folders, each file with one link, nothing executable or setuid.
func assertHostTreeSafe(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	tree := hostTree(t, dir)
	for name, mode := range tree {
		if !mode.IsRegular() && !mode.IsDir() {
			t.Errorf("host output %q is %v: only regular files and folders may be harvested", name, mode)
		}
		if mode.IsRegular() && mode&0o7111 != 0 {
			t.Errorf("host output %q has mode %v: no exec or setuid bits may be harvested", name, mode)
		}
		if mode.IsRegular() && linkCount(filepath.Join(dir, name)) > 1 {
			t.Errorf("host output %q has more than one link", name)
		}
	}
	return tree
}

func fileNames(files []kernel.File) []string {
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	return names
}

func hasFile(files []kernel.File, name string) (kernel.File, bool) {
	for _, f := range files {
		if f.Name == name {
			return f, true
		}
	}
	return kernel.File{}, false
}

// pyStr quotes a Go string as a Python string literal (JSON strings are valid Python).
func pyStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// linkCount is the file's hard-link count (1 where the platform does not say).
func linkCount(path string) uint64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	v := reflect.ValueOf(fi.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Nlink"); f.IsValid() && f.CanUint() {
			return f.Uint()
		}
	}
	return 1
}

// testCtx is a context for one sandbox call that ends with the test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// dirBytes is the total size of the regular files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func randHex() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
