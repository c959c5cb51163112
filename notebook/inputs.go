package notebook

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/filekind"
)

// A hand-written notebook's inputs, as Jupyter finds them: its code runs in
// the notebook's folder, so any file inside that folder the code names in
// a string literal (a file, or a folder whose files it then reads), whatever
// opens it and whatever its extension, is an input placed at the same
// relative path in the sandbox's working folder. A file outside the folder
// that a reader is given stays today's rule: read at /data/<name> only when
// the user names it too (NotebookInput.Named).

// readCalls are the readers whose literal argument names a file the code
// reads, also outside the notebook's folder: those of the table of file
// kinds (read_csv, read_por, read_pickle…).
var readCalls = filekind.ReadFunctions()

// openCalls open a file too; outside the folder they count only for a
// file that exists (open() also writes).
var openCalls = map[string]bool{
	"open": true, "connect": true, "loadtxt": true, "genfromtxt": true, "load": true, "fromfile": true,
	"Path": true, "ZipFile": true, "imread": true, "read_file": true, "load_workbook": true,
}

// Limits on what a folder named in the code brings in.
const (
	maxFolderFiles  = 200
	maxNotebookRead = 4 << 10 // longer literals are text, not paths
)

type inputScan struct {
	dir, realDir string
	nb           *RerunNotebook
	byRel        map[string]int // rel path -> index in nb.Inputs
	byOutside    map[string]string
	names        map[string]bool
	num          int            // the code cell scanned, counted from 1
	wrote        map[string]int // host path an earlier cell (or line) writes -> its offset, -1 for an earlier cell
	folders      map[string]bool
}

func newInputScan(dir string, nb *RerunNotebook) *inputScan {
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	return &inputScan{dir: dir, realDir: real, nb: nb, byRel: map[string]int{}, byOutside: map[string]string{}, names: map[string]bool{},
		wrote: map[string]int{}, folders: map[string]bool{}}
}

// cell adds the inputs src, the notebook's code cell num, names and
// returns src with the literals that must change rewritten: an absolute
// path inside the folder becomes the relative one, a file outside becomes
// /data/<name>. A path the code wrote before it reads it is no input
// (writes.go).
func (sc *inputScan) cell(num int, src string) (string, error) {
	sc.num = num
	strs, calls := scanPythonCalls(src)
	sc.noteWrites(append(pythonWrites(src, strs, calls), shellWrites(src)...))
	defer sc.endCell()
	sc.pathWords(src, strs) // a shell line's files: !head data/sales.csv (inputs_words.go)
	var b strings.Builder
	last := 0
	for _, s := range strs {
		body := s.body
		if s.bytes() || s.fmt() || body == "" || len(body) > maxNotebookRead || strings.ContainsAny(body, "\\\n\x00") {
			continue
		}
		if sc.writtenBefore(sc.hostPath(body), s.start) {
			continue // the code's own file, where the code wrote it
		}
		calls := readCalls[s.callee] || openCalls[s.callee]
		if calls && isURL(body) {
			return "", fmt.Errorf("it reads %s from the network, and the sandbox has none: download the file into the notebook's folder and read it from there", clip(body, 120))
		}
		host := sc.hostPath(body)
		real := host
		if r, err := filepath.EvalSymlinks(host); err == nil {
			real = r
		}
		rel, err := filepath.Rel(sc.realDir, real)
		in := err == nil && inside(sc.realDir, real) && rel != "."
		replace := ""
		switch {
		case in:
			rel = filepath.ToSlash(rel)
			st, err := os.Stat(real)
			if err != nil {
				if readCalls[s.callee] {
					sc.add(rel, real) // missing: the plan asks for it before anything runs
				}
				if !filepath.IsAbs(body) {
					continue // else a file the code may write
				}
				replace = rel
				break
			}
			if st.Mode().IsRegular() {
				sc.add(rel, real)
			} else if st.IsDir() {
				if err := sc.addFolder(rel, real); err != nil {
					return "", err
				}
			} else {
				continue
			}
			if filepath.IsAbs(body) {
				replace = rel
			}
		case readCalls[s.callee] || (openCalls[s.callee] && exists(host)):
			name, err := sc.outside(body, host)
			if err != nil {
				return "", err
			}
			replace = "/data/" + name
		default:
			continue
		}
		if replace != "" {
			b.WriteString(src[last:s.start])
			b.WriteString(s.prefix + s.quote + replace + s.quote)
			last = s.end
		}
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

func (sc *inputScan) add(rel, host string) {
	if _, ok := sc.byRel[rel]; ok {
		return
	}
	sc.byRel[rel] = len(sc.nb.Inputs)
	sc.nb.Inputs = append(sc.nb.Inputs, NotebookInput{Name: sc.name(filepath.Base(rel)), Path: host, Rel: rel, Cell: sc.num})
}

// addFolder adds the files of a folder the code names (its own files, not
// hidden ones or notebooks), for code that joins a name to it.
func (sc *inputScan) addFolder(rel, real string) error {
	entries, err := os.ReadDir(real)
	if err != nil {
		return nil
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".ipynb") || !e.Type().IsRegular() {
			continue
		}
		files = append(files, n)
	}
	if len(files) > maxFolderFiles {
		return fmt.Errorf("it names the folder %s, which holds %d files, more than the %d quarry brings into the sandbox: name the files it reads", rel, len(files), maxFolderFiles)
	}
	sort.Strings(files)
	for _, n := range files {
		sc.add(rel+"/"+n, filepath.Join(real, n))
	}
	return nil
}

// outside records a file outside the folder that a reader is given.
func (sc *inputScan) outside(lit, host string) (string, error) {
	if name, ok := sc.byOutside[lit]; ok {
		return name, nil
	}
	base := filepath.Base(lit)
	if err := checkName(base); err != nil {
		return "", fmt.Errorf("it reads %q: %v", lit, err)
	}
	name := sc.name(base)
	sc.byOutside[lit] = name
	sc.nb.Inputs = append(sc.nb.Inputs, NotebookInput{Name: name, Named: host, Cell: sc.num})
	return name, nil
}

// name is a name under /data no other input has: the base name, or the
// base name with a number.
func (sc *inputScan) name(base string) string {
	name := base
	ext := filepath.Ext(base)
	for i := 2; sc.names[name]; i++ {
		name = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(base, ext), i, ext)
	}
	sc.names[name] = true
	return name
}

func isURL(s string) bool {
	for _, p := range []string{"http://", "https://", "ftp://", "s3://", "gs://", "gcs://", "az://", "abfs://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}
