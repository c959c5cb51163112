package notebook

import (
	"os"
	"path/filepath"
	"strings"
)

// A notebook's shell lines name its files without quotes (!head -n 5
// data/sales.csv, !wc -l data/*.csv, %%bash cells): a word outside string
// literals and comments that is a relative path to a file or folder
// inside the notebook's folder (or a pattern matching files there) is an
// input too. Which lines are shell lines is the kernel's to say (its
// IPython rules); any word that names such a file counts, so none is
// missed. A folder or pattern over the limit is left out, not refused: a
// word is weaker evidence than a string literal.

// pathWords adds the files the bare words of src name.
func (sc *inputScan) pathWords(src string, strs []pyString) {
	last := 0
	for _, s := range strs {
		sc.wordsIn(src[last:s.start], last)
		last = s.end
	}
	sc.wordsIn(src[last:], last)
}

// wordsIn adds the files of code, which starts at offset at of the cell.
func (sc *inputScan) wordsIn(code string, at int) {
	for _, line := range strings.SplitAfter(code, "\n") {
		lineAt := at
		at += len(line)
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, w := range strings.FieldsFunc(line, notPathChar) {
			if _, after, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
				w = after // --file=data/x.csv
			}
			if strings.HasPrefix(w, "-") || !strings.ContainsAny(w, "/.") || strings.Contains(w, "://") || filepath.IsAbs(w) {
				continue
			}
			sc.word(strings.TrimRight(w, ".,:"), lineAt)
		}
	}
}

func notPathChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r > 0x7f:
		return false
	}
	return !strings.ContainsRune("_./-~*?[]+@%:,=", r)
}

// word adds what one relative path or pattern names inside the folder.
func (sc *inputScan) word(w string, at int) {
	host := filepath.Join(sc.dir, filepath.FromSlash(w))
	if sc.writtenBefore(filepath.Clean(host), at) {
		return
	}
	if strings.ContainsAny(w, "*?[") {
		matches, err := filepath.Glob(host)
		if err != nil || len(matches) > maxFolderFiles {
			return
		}
		for _, m := range matches {
			sc.pathWord(m, false)
		}
		return
	}
	sc.pathWord(host, true)
}

func (sc *inputScan) pathWord(host string, folders bool) {
	real := host
	if r, err := filepath.EvalSymlinks(host); err == nil {
		real = r
	}
	rel, err := filepath.Rel(sc.realDir, real)
	if err != nil || !inside(sc.realDir, real) || rel == "." {
		return
	}
	st, err := os.Stat(real)
	switch {
	case err != nil:
	case st.Mode().IsRegular() && !strings.HasSuffix(real, ".ipynb"):
		sc.add(filepath.ToSlash(rel), real)
	case st.IsDir() && folders:
		entries, err := os.ReadDir(real)
		if err == nil && len(entries) <= maxFolderFiles {
			sc.addFolder(filepath.ToSlash(rel), real)
		}
	}
}
