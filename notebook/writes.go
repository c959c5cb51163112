package notebook

import (
	"os"
	"path/filepath"
	"strings"
)

// What a notebook's code writes, as Jupyter would run it: a path an
// earlier cell (or an earlier line of the same cell) writes is the code's
// own file when a later line reads it, not an input to ask for, map or
// copy (frame.to_pickle('examples/frame_pickle') two cells before
// pd.read_pickle('examples/frame_pickle')). Only literal paths are seen;
// a path built at run time is read as it is today.

// writeCalls write the file their first positional argument (or the
// keyword named) names: pandas' to_* writers, matplotlib's and numpy's
// savers, ExcelWriter.
var writeCalls = map[string]bool{
	"to_csv": true, "to_pickle": true, "to_parquet": true, "to_excel": true, "to_json": true, "to_feather": true,
	"to_stata": true, "to_hdf": true, "to_html": true, "to_latex": true, "to_markdown": true, "to_xml": true,
	"to_orc": true, "to_string": true, "to_file": true, "to_netcdf": true, "ExcelWriter": true, "HDFStore": true,
	"savefig": true, "imsave": true, "save": true, "savez": true, "savez_compressed": true, "savetxt": true,
	"tofile": true, "write_csv": true, "write_parquet": true, "write_table": true,
}

// writeKeywords name the written path where a writer takes it by keyword.
var writeKeywords = map[string]bool{"path_or_buf": true, "path": true, "excel_writer": true, "fname": true, "file": true, "where": true}

// copyCalls write the file their second argument names (shutil.copy(a, b),
// os.rename(a, b), urlretrieve(url, b)).
var copyCalls = map[string]bool{
	"copy": true, "copy2": true, "copyfile": true, "move": true, "rename": true, "replace": true, "urlretrieve": true,
}

// folderCalls make the folder their first argument names.
var folderCalls = map[string]bool{"makedirs": true, "mkdir": true}

// openCallsWrite are the open()s whose mode argument can make them write.
var openCallsWrite = map[string]bool{"open": true}

// pathMethods, called on Path('x'), write the file (or make the folder).
var pathMethods = []struct {
	method string
	folder bool
}{{".write_text(", false}, {".write_bytes(", false}, {".touch(", false}, {".mkdir(", true}}

// written is one path the code writes, at a byte offset of its cell.
type written struct {
	path   string // as written in the code: relative to the notebook's folder, or absolute
	at     int
	folder bool // a folder it makes, not a file
}

// pythonWrites finds the literal paths the Python of src writes.
func pythonWrites(src string, strs []pyString, calls []pyCall) []written {
	var out []written
	mode := func(call int) string {
		for _, s := range strs {
			if s.call == call && ((s.kw == "" && s.arg == 1) || s.kw == "mode") {
				return s.body
			}
		}
		return ""
	}
	for _, s := range strs {
		if s.call < 0 || s.bytes() || s.fmt() || s.body == "" || strings.ContainsAny(s.body, "\n\x00") {
			continue
		}
		name := calls[s.call].name
		first := s.kw == "" && s.arg == 0
		switch {
		case writeCalls[name] && (first || writeKeywords[s.kw]):
			out = append(out, written{path: s.body, at: s.start})
		case copyCalls[name] && ((s.kw == "" && s.arg == 1) || s.kw == "dst" || s.kw == "filename"):
			out = append(out, written{path: s.body, at: s.start})
		case folderCalls[name] && (first || s.kw == "name"):
			out = append(out, written{path: s.body, at: s.start, folder: true})
		case openCallsWrite[name] && (first || s.kw == "file") && strings.ContainsAny(mode(s.call), "wax"):
			out = append(out, written{path: s.body, at: s.start})
		case (name == "Path" || name == "PurePath") && first && calls[s.call].end > 0:
			rest := src[calls[s.call].end:]
			for _, m := range pathMethods {
				if strings.HasPrefix(rest, m.method) {
					out = append(out, written{path: s.body, at: s.start, folder: m.folder})
				}
			}
			if m, ok := strings.CutPrefix(rest, ".open("); ok && strings.ContainsAny(leadingLiteral(m), "wax") {
				out = append(out, written{path: s.body, at: s.start})
			}
		}
	}
	return out
}

// leadingLiteral is the body of the string literal code starts with (after
// "mode=", if so), "" when it starts with none.
func leadingLiteral(code string) string {
	code = strings.TrimSpace(code)
	code = strings.TrimSpace(strings.TrimPrefix(code, "mode="))
	if code == "" || (code[0] != '\'' && code[0] != '"') {
		return ""
	}
	if end := strings.IndexByte(code[1:], code[0]); end >= 0 {
		return code[1 : 1+end]
	}
	return ""
}

// hostPath is where a path the code names lies on the host, the notebook's
// folder being the working folder; cleaned, links not resolved (a file the
// code writes may not exist yet).
func (sc *inputScan) hostPath(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(sc.dir, filepath.FromSlash(p))
	}
	return filepath.Clean(p)
}

// noteWrites records the current cell's writes, at their offsets, and the
// host folders the code writes into: the sandbox's working folder gets
// those that exist in the notebook's folder, as the code finds them there
// in Jupyter (RerunNotebook.Folders).
func (sc *inputScan) noteWrites(ws []written) {
	for _, w := range ws {
		if w.path == "" || isURL(w.path) || strings.ContainsAny(w.path, "*?[\x00") {
			continue
		}
		host := sc.hostPath(w.path)
		if at, ok := sc.wrote[host]; !ok || (at >= 0 && w.at < at) {
			sc.wrote[host] = w.at
		}
		dir := host
		if !w.folder {
			dir = filepath.Dir(host)
		}
		sc.folder(dir)
	}
}

// folder keeps dir, and the folders between it and the notebook's, when
// it lies inside the notebook's folder and exists there.
func (sc *inputScan) folder(dir string) {
	rel, err := filepath.Rel(sc.dir, dir)
	if err != nil || rel == "." || !inside(sc.dir, dir) {
		return
	}
	rel = filepath.ToSlash(rel)
	if sc.folders[rel] {
		return
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return
	}
	sc.folders[rel] = true
	sc.nb.Folders = append(sc.nb.Folders, rel)
}

// writtenBefore tells whether the code writes host before offset at of the
// current cell: in an earlier cell, or earlier in this one (or there).
func (sc *inputScan) writtenBefore(host string, at int) bool {
	w, ok := sc.wrote[host]
	return ok && (w < 0 || w <= at) // at itself: the write's own literal
}

// endCell makes the current cell's writes earlier ones for the next.
func (sc *inputScan) endCell() {
	for p := range sc.wrote {
		sc.wrote[p] = -1
	}
}
