package image

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The archive's Contents files (every path of every package, checked by
// apt against the signed Release file) say which package ships a Python
// module: usr/lib/python3/dist-packages/xgboost/__init__.py is
// python3-xgboost's. Reading them takes seconds, so the Python paths are
// kept once per download in a small index beside them.

// moduleIndex maps top-level Python module names and normalized
// distribution names (a pip name) to the packages that ship them.
type moduleIndex struct {
	modules map[string]map[string]bool // module → package → it ships the module itself (not only a namespace part)
	dists   map[string]map[string]bool // normalized distribution → package
}

const indexVersion = "quarry-modules 1"

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pythonLib  = regexp.MustCompile(`^usr/lib/python3(?:\.\d+)?/(?:dist-packages/|lib-dynload/)?`)
	distSep    = regexp.MustCompile(`[-_.]+`)
)

// contentsFiles are the Contents files apt keeps for the archive.
func (x *apt) contentsFiles() []string {
	files, _ := filepath.Glob(filepath.Join(x.dir, "lists", "*_Contents-*"))
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "-diff") && !strings.Contains(f, "/partial/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// modules loads the module index, building it when the Contents files
// changed since.
func (x *apt) modules(ctx context.Context, w io.Writer) (*moduleIndex, error) {
	files := x.contentsFiles()
	if len(files) == 0 {
		return nil, fmt.Errorf("the archive %s %s has no Contents index: a module name cannot be mapped to its package; name the Debian package instead", x.archive.URL, x.archive.Suite)
	}
	stamp := indexVersion
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("contents: %w", err)
		}
		stamp += fmt.Sprintf(" %s:%d:%d", filepath.Base(f), fi.Size(), fi.ModTime().UnixNano())
	}
	path := filepath.Join(x.dir, "state", "modules.tsv")
	if idx, ok := readModuleIndex(path, stamp); ok {
		return idx, nil
	}
	fmt.Fprintf(w, "indexing the Python modules of Debian %s (once per package list)\n", x.archive.Suite)
	idx := &moduleIndex{modules: map[string]map[string]bool{}, dists: map[string]map[string]bool{}}
	for _, f := range files {
		if err := idx.read(ctx, f); err != nil {
			return nil, err
		}
	}
	if err := idx.write(path, stamp); err != nil {
		return nil, err
	}
	return idx, nil
}

// read adds the Python paths of one Contents file.
func (idx *moduleIndex) read(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("contents: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("contents %s: %w", filepath.Base(path), err)
		}
		defer gz.Close()
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	prefix := []byte("usr/lib/python3")
	for n := 0; sc.Scan(); n++ {
		if n%200000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line := sc.Bytes()
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		i := bytes.LastIndexAny(line, " \t")
		if i < 0 {
			continue
		}
		idx.add(string(bytes.TrimSpace(line[:i])), string(line[i+1:]))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("contents %s: %w", filepath.Base(path), err)
	}
	return nil
}

// add records one path and the packages ("section/name,section/name") that
// ship it.
func (idx *moduleIndex) add(path, owners string) {
	loc := pythonLib.FindString(path)
	if loc == "" {
		return
	}
	rest := path[len(loc):]
	top, below, nested := strings.Cut(rest, "/")
	var module, dist string
	own := false
	switch {
	case strings.HasSuffix(top, ".dist-info") || strings.HasSuffix(top, ".egg-info"):
		name, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(top, ".dist-info"), ".egg-info"), "-")
		dist = normalizeDist(name)
	case !nested && strings.HasSuffix(top, ".py"):
		module, own = strings.TrimSuffix(top, ".py"), true
	case !nested && strings.HasSuffix(top, ".so"):
		module, _, _ = strings.Cut(top, ".")
		own = true
	case nested:
		module = top
		own = below == "__init__.py" || strings.HasPrefix(below, "__init__.")
	}
	for _, o := range strings.Split(owners, ",") {
		pkg := o[strings.LastIndexByte(o, '/')+1:]
		switch {
		case dist != "":
			put(idx.dists, dist, pkg, true)
		case module != "" && identifier.MatchString(module):
			put(idx.modules, module, pkg, own)
		}
	}
}

func put(m map[string]map[string]bool, key, pkg string, own bool) {
	if m[key] == nil {
		m[key] = map[string]bool{}
	}
	m[key][pkg] = m[key][pkg] || own
}

// normalizeDist is PEP 503's normalized project name.
func normalizeDist(name string) string {
	return strings.ToLower(distSep.ReplaceAllString(name, "-"))
}

// module names the package that ships a top-level module: one that has
// the module itself (not a namespace part of it), preferring the name
// Debian's Python policy gives it (python3-<module>), then any python3-
// package, then the shortest name; "" when none does.
func (idx *moduleIndex) module(name string) string {
	return best(idx.modules[name], "python3-"+normalizeDist(name))
}

// dist names the package that ships a distribution (a pip name).
func (idx *moduleIndex) dist(name string) string {
	n := normalizeDist(name)
	return best(idx.dists[n], "python3-"+n)
}

func best(pkgs map[string]bool, policy string) string {
	var cands []string
	for p, own := range pkgs {
		if own && !strings.HasSuffix(p, "-dbg") {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 && len(pkgs) == 1 {
		for p := range pkgs { // a namespace package only one package has
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	rank := func(p string) int {
		switch {
		case p == policy:
			return 0
		case strings.HasPrefix(p, "python3-"):
			return 1
		}
		return 2
	}
	slices.SortFunc(cands, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		if d := len(a) - len(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return cands[0]
}

// The index on disk: its stamp, then "m" or "d", the name and
// package:flag pairs, one name a line.
func (idx *moduleIndex) write(path, stamp string) error {
	var b strings.Builder
	b.WriteString(stamp + "\n")
	for kind, m := range map[string]map[string]map[string]bool{"m": idx.modules, "d": idx.dists} {
		for name, pkgs := range m {
			b.WriteString(kind + "\t" + name)
			for p, own := range pkgs {
				flag := "0"
				if own {
					flag = "1"
				}
				b.WriteString("\t" + p + ":" + flag)
			}
			b.WriteString("\n")
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("module index: %w", err)
	}
	return os.Rename(tmp, path)
}

func readModuleIndex(path, stamp string) (*moduleIndex, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	if first != stamp {
		return nil, false
	}
	idx := &moduleIndex{modules: map[string]map[string]bool{}, dists: map[string]map[string]bool{}}
	for _, line := range strings.Split(rest, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			continue
		}
		m := idx.modules
		if f[0] == "d" {
			m = idx.dists
		}
		for _, pf := range f[2:] {
			p, flag, _ := strings.Cut(pf, ":")
			put(m, f[1], p, flag == "1")
		}
	}
	return idx, true
}
