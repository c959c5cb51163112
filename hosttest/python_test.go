package hosttest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The Python the tests run on the host, as opposed to the Python they send
// into the sandbox (which runs in the image, with the image's packages),
// cannot be told apart in general: the same cell may be sent to the sandbox
// and run by nbclient on the host. So hostImports reads only the places
// known to run on the host:
//   - .py files outside the folders the sandbox runs (sandboxPy): the tests'
//     own scripts (e2e/testdata/plain_python.py, export/reporttest/readback.py);
//   - the tests' notebooks (.ipynb under testdata), which Jupyter wrote on
//     the host and plain_python.py runs there;
//   - in Go tests, the script after "-c" of the host's Python run by
//     exec.Command (py, hosttest.Python(…), "python3"), and the arguments
//     of the helpers in hostCode;
//   - a session's exported notebook run by nbclient (a function that uses
//     an identifier of exportRunners): the cells its fake model ran
//     (openaitest.ToolCalls) and the setup cell export writes (setupCell).
//
// Python reaching the host some other way is not seen: name the helper in
// hostCode.
var (
	sandboxPy     = []string{"pykernel", "export/reportpy"}
	hostCode      = map[string]int{"plainPython": 2, "jupyterNotebook": 3} // helper → first argument that is code
	exportRunners = []string{"nbclientRun"}
	setupCell     = [2]string{"export/notebook.go", "setupSource"}
)

// pyImport is an import statement: "import a.b as c, d" or "from a.b import c".
var pyImport = regexp.MustCompile(`^\s*(?:import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)\s*$|from\s+(\w[\w.]*)\s+import\b)`)

// pyModules are the top-level modules a piece of Python imports.
func pyModules(code string) []string {
	var mods []string
	for _, line := range strings.Split(code, "\n") {
		for _, stmt := range strings.Split(line, ";") {
			m := pyImport.FindStringSubmatch(stmt)
			switch {
			case m == nil:
			case m[2] != "":
				mods = append(mods, strings.Split(m[2], ".")[0])
			default:
				for _, part := range strings.Split(m[1], ",") {
					mods = append(mods, strings.Split(strings.Fields(part)[0], ".")[0])
				}
			}
		}
	}
	return mods
}

// hostImports maps each top-level module the host's Python imports in the
// tests to the first place that imports it.
func hostImports(t *testing.T, root string) map[string]string {
	t.Helper()
	found := map[string]string{}
	add := func(where, code string) {
		for _, m := range pyModules(code) {
			if _, ok := found[m]; !ok {
				found[m] = where
			}
		}
	}
	helpers := map[string]bool{}
	runners := 0
	parsed := map[string]map[string]*goPackage{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			for _, s := range sandboxPy {
				if rel == s {
					return filepath.SkipDir
				}
			}
			if d.Name() == ".git" || rel == "hosttest" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".py"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			add(rel, string(b))
		case strings.HasSuffix(path, ".ipynb") && strings.Contains(rel, "testdata"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var nb struct {
				Cells []struct {
					CellType string          `json:"cell_type"`
					Source   json.RawMessage `json:"source"`
				} `json:"cells"`
			}
			if err := json.Unmarshal(b, &nb); err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			for _, c := range nb.Cells {
				var one string
				var lines []string
				if json.Unmarshal(c.Source, &one) != nil {
					json.Unmarshal(c.Source, &lines)
					one = strings.Join(lines, "")
				}
				if c.CellType == "code" {
					add(rel, one)
				}
			}
		case strings.HasSuffix(path, "_test.go") || strings.HasSuffix(filepath.Dir(path), "test") && strings.HasSuffix(path, ".go"):
			if strings.Contains(rel, "testdata") {
				return nil
			}
			for _, p := range goPackages(t, filepath.Dir(path), parsed) {
				if f, ok := p.files[path]; ok {
					goHostCode(f, p.values, rel, helpers, &runners, add)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for h := range hostCode {
		if !helpers[h] {
			t.Errorf("hostCode names %s, which no test calls: update the list", h)
		}
	}
	if runners == 0 {
		t.Errorf("no test uses %v: update exportRunners", exportRunners)
		return found
	}
	// The exported notebook's setup cell, run with the session's cells.
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, setupCell[0]), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == setupCell[1] {
			seen = true
			ast.Inspect(fn, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					add(setupCell[0], s)
				}
				return true
			})
		}
	}
	if !seen {
		t.Errorf("%s has no func %s: update setupCell", setupCell[0], setupCell[1])
	}
	return found
}

// goPackage is a folder's Go files of one package, parsed, and the values
// bound at its top level.
type goPackage struct {
	files  map[string]*ast.File
	values map[string]ast.Expr
}

// goPackages parses a folder's Go files once, by package name.
func goPackages(t *testing.T, dir string, cache map[string]map[string]*goPackage) map[string]*goPackage {
	t.Helper()
	if pkgs, ok := cache[dir]; ok {
		return pkgs
	}
	pkgs := map[string]*goPackage{}
	cache[dir] = pkgs
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range names {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		p := pkgs[f.Name.Name]
		if p == nil {
			p = &goPackage{files: map[string]*ast.File{}, values: map[string]ast.Expr{}}
			pkgs[f.Name.Name] = p
		}
		p.files[name] = f
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok {
				for _, s := range g.Specs {
					if v, ok := s.(*ast.ValueSpec); ok && len(v.Names) == len(v.Values) {
						for i, n := range v.Names {
							p.values[n.Name] = v.Values[i]
						}
					}
				}
			}
		}
	}
	return pkgs
}

// goHostCode reads one Go file for the Python it runs on the host.
func goHostCode(file *ast.File, pkg map[string]ast.Expr, rel string, helpers map[string]bool, runners *int, add func(where, code string)) {
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		local := map[string]ast.Expr{}
		runsExport := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							local[id.Name] = n.Rhs[i]
						}
					}
				}
			case *ast.Ident:
				for _, r := range exportRunners {
					if n.Name == r {
						runsExport = true
					}
				}
			}
			return true
		})
		if runsExport {
			*runners++
		}
		where := rel + ":" + fn.Name.Name
		strs := func(e ast.Expr) []string { return goStrings(e, local, pkg, 0) }
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := calleeName(call.Fun)
			switch {
			case name == "exec.Command" || name == "exec.CommandContext":
				prog := 0
				if name == "exec.CommandContext" {
					prog = 1
				}
				if len(call.Args) <= prog || !hostPython(call.Args[prog]) {
					return true
				}
				for i := prog + 1; i+1 < len(call.Args); i++ {
					if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Value == `"-c"` {
						for _, s := range strs(call.Args[i+1]) {
							add(where, s)
						}
					}
				}
			case hostCode[name] > 0:
				helpers[name] = true
				for _, a := range call.Args[min(hostCode[name], len(call.Args)):] {
					for _, s := range strs(a) {
						add(where, s)
					}
				}
			case runsExport && strings.HasSuffix(name, "ToolCalls"):
				for _, a := range call.Args {
					for _, s := range strs(a) {
						add(where, s)
					}
				}
			}
			return true
		})
	}
}

// calleeName is a call's function as written: "f" or "pkg.F".
func calleeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
		return e.Sel.Name
	}
	return ""
}

// hostPython tells whether a program argument is the host's Python: the
// tests name it py (from hosttest.Python), or call hosttest.Python there.
func hostPython(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "py"
	case *ast.CallExpr:
		return calleeName(e.Fun) == "hosttest.Python"
	case *ast.BasicLit:
		s, _ := strconv.Unquote(e.Value)
		return s == "python3" || s == "/usr/bin/python3"
	}
	return false
}

// goStrings are the string values an expression is made of, as far as the
// file shows them: literals, identifiers bound to them in the function or
// the package, sums, slices and calls of them.
func goStrings(e ast.Expr, local, pkg map[string]ast.Expr, depth int) []string {
	if depth > 20 {
		return nil
	}
	rec := func(e ast.Expr) []string { return goStrings(e, local, pkg, depth+1) }
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, _ := strconv.Unquote(e.Value)
			return []string{s}
		}
	case *ast.Ident:
		if v, ok := local[e.Name]; ok {
			return rec(v)
		}
		if v, ok := pkg[e.Name]; ok {
			return rec(v)
		}
	case *ast.BinaryExpr:
		x, y := rec(e.X), rec(e.Y)
		if len(x) == 1 && len(y) == 1 {
			return []string{x[0] + y[0]}
		}
		return append(x, y...)
	case *ast.ParenExpr:
		return rec(e.X)
	case *ast.SliceExpr:
		return rec(e.X)
	case *ast.CompositeLit:
		var out []string
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			out = append(out, rec(el)...)
		}
		return out
	case *ast.CallExpr:
		var out []string
		for _, a := range e.Args {
			out = append(out, rec(a)...)
		}
		return out
	}
	return nil
}

// stdlib are the modules of the host's Python's standard library.
func stdlib(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command(Python(t), "-c", `import sys; print("\n".join(sys.stdlib_module_names))`).Output()
	if err != nil {
		t.Fatalf("the host's Python's standard library: %v", err)
	}
	names := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		names[n] = true
	}
	return names
}

// The reader sees the imports of each kind of place.
func TestPyModules(t *testing.T) {
	code := "import json, os.path as p\nfrom nbclient import NotebookClient\n  from IPython.display import HTML\nx = 1; import pandas as pd\nfrom . import local\n# import commented\nprint('import no')"
	got := strings.Join(pyModules(code), " ")
	if got != "json os nbclient IPython pandas" {
		t.Errorf("modules: %s", got)
	}
}
