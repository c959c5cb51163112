package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/quarry-cli/quarry/"

// The package table of docs/architecture.md is the import rule: each
// package imports, of quarry's, only what its "may import" column names.
func TestArchitectureImportRules(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string][]string{} // package -> may import; nil for "everything"
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\|.*\\| ([^|]+) \\|$")
	names := regexp.MustCompile("`([a-z0-9/]+)`")
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		var may []string
		if strings.TrimSpace(m[2]) == "everything" {
			allowed[m[1]] = nil
			continue
		}
		for _, n := range names.FindAllStringSubmatch(m[2], -1) {
			may = append(may, n[1])
		}
		allowed[m[1]] = append([]string{}, may...)
	}
	if len(allowed) < 10 {
		t.Fatalf("found %d rows in the package table of docs/architecture.md", len(allowed))
	}
	for _, p := range listPackages(t, "./...") {
		name := strings.TrimPrefix(p.ImportPath, module)
		if p.ImportPath == strings.TrimSuffix(module, "/") {
			name = "main"
		}
		if strings.Contains(name, "/") { // test helpers and sub-packages belong to their parent's row
			continue
		}
		may, ok := allowed[name]
		if !ok {
			t.Errorf("package %s has no row in docs/architecture.md's package table", name)
			continue
		}
		if may == nil {
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if top, _, _ := strings.Cut(dep, "/"); !slices.Contains(may, top) && !slices.Contains(may, dep) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow it", name, dep)
			}
		}
	}
	// The engine and the image never reach the session's kernel code, even
	// through another package.
	for _, p := range listPackages(t, "-deps", "./engine", "./image") {
		if strings.HasPrefix(p.ImportPath, module+"sandbox") {
			t.Errorf("engine or image depends on %s", p.ImportPath)
		}
	}
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
