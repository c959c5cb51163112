package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/quarry-cli/quarry/"

// The package table of docs/architecture.md is the import rule: each
// package imports, of quarry's, only what its "may import" column names;
// a sub-package without a row is a test helper under its parent's row.
func TestArchitectureImportRules(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range importRuleErrors(t, string(doc), listPackages(t, "./...")) {
		t.Error(e)
	}
	// The engine and the image never reach the session's kernel code, even
	// through another package.
	for _, p := range listPackages(t, "-deps", "./engine", "./image") {
		if strings.HasPrefix(p.ImportPath, module+"sandbox") {
			t.Errorf("engine or image depends on %s", p.ImportPath)
		}
	}
}

// The rule must be able to fail: a row edited to forbid an import the tree
// makes, a missing row, and the imports only the rule forbids are caught.
func TestArchitectureImportRulesCatchBreaks(t *testing.T) {
	raw, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	pkgs := listPackages(t, "./...")
	edit := func(old, new string) string {
		t.Helper()
		if strings.Count(doc, old) != 1 {
			t.Fatalf("docs/architecture.md has %d copies of %q", strings.Count(doc, old), old)
		}
		return strings.Replace(doc, old, new, 1)
	}
	fake := func(name string, imports ...string) []listed {
		p := listed{ImportPath: module + name}
		for _, i := range imports {
			p.Imports = append(p.Imports, module+i)
		}
		return append(slices.Clone(pkgs), p)
	}
	cases := []struct {
		name string
		doc  string
		pkgs []listed
		want []string
	}{
		{"image may not import engine", // image/apttest inherits image's row
			edit("| `engine`, `kernel` |\n", "| `kernel` |\n"), pkgs,
			[]string{"image imports engine", "image/apttest imports engine"}},
		{"source may not import secret",
			edit("| `secret`, `kernel` |\n", "| `kernel` |\n"), pkgs,
			[]string{"source imports secret"}},
		{"sandbox may not import image", // sandbox/sandboxtest inherits sandbox's row
			edit("| `engine`, `image`, `kernel`, `filekind`, `pykernel` |\n", "| `engine`, `kernel`, `filekind`, `pykernel` |\n"), pkgs,
			[]string{"sandbox imports image", "sandbox/sandboxtest imports image"}},
		{"no row for hosttest",
			regexp.MustCompile("(?m)^\\| `hosttest` \\|.*\n").ReplaceAllString(doc, ""), pkgs,
			[]string{"package hosttest has no row"}},
		{"a package imports a test helper", doc, fake("session", "sandbox/sandboxtest"),
			[]string{"session imports sandbox/sandboxtest"}},
		{"everything is not the test helpers", doc, fake("cli", "hosttest"),
			[]string{"cli imports hosttest"}},
		{"a test helper imports past its parent's row", doc, fake("source/pgtest", "session"),
			[]string{"source/pgtest imports session"}},
		{"a sub-package that is not a test helper", doc, fake("sandbox/pool", "kernel"),
			[]string{"package sandbox/pool has no row"}},
	}
	for _, c := range cases {
		errs := strings.Join(importRuleErrors(t, c.doc, c.pkgs), "\n")
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: want an error %q, got:\n%s", c.name, w, errs)
			}
		}
	}
}

// importRuleErrors holds pkgs to the package table in doc (see "Packages"
// in docs/architecture.md) and returns one line for each import or package
// it does not allow.
func importRuleErrors(t *testing.T, doc string, pkgs []listed) []string {
	allowed := map[string][]string{} // package -> may import; nil for "everything"
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\|.*\\| ([^|]+) \\|$")
	names := regexp.MustCompile("`([a-z0-9/]+)`")
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		if strings.TrimSpace(m[2]) == "everything" {
			allowed[m[1]] = nil
			continue
		}
		may := []string{}
		for _, n := range names.FindAllStringSubmatch(m[2], -1) {
			may = append(may, n[1])
		}
		allowed[m[1]] = may
	}
	if len(allowed) < 10 {
		t.Fatalf("found %d rows in the package table of docs/architecture.md", len(allowed))
	}
	var errs []string
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, module)
		if p.ImportPath == strings.TrimSuffix(module, "/") {
			name = "main"
		}
		may, ok := allowed[name]
		if !ok && strings.Contains(name, "/") && testHelper(name) {
			parent := path.Dir(name)
			for ; parent != "."; parent = path.Dir(parent) {
				if may, ok = allowed[parent]; ok {
					break
				}
			}
			if ok && may != nil {
				may = append(slices.Clone(may), parent)
			}
		}
		if !ok {
			errs = append(errs, fmt.Sprintf("package %s has no row in docs/architecture.md's package table", name))
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok || slices.Contains(may, dep) {
				continue
			}
			if testHelper(dep) {
				if testHelper(name) {
					continue
				}
			} else if may == nil {
				continue
			}
			errs = append(errs, fmt.Sprintf("%s imports %s, which docs/architecture.md does not allow it", name, dep))
		}
	}
	return errs
}

// testHelper says whether a package is one for tests only: its name ends
// in "test" (hosttest, source/pgtest).
func testHelper(name string) bool {
	return strings.HasSuffix(path.Base(name), "test")
}

type listed struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(out)
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return pkgs
}
