package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Roots are the folders a client may attach files from (--root). A path
// is refused when it names anything outside them, goes up with "..",
// leads outside through a symbolic link, is hidden or inside a hidden
// folder (a dot name below the root), or is a file with other names
// (hard links), one of which may be outside: the client is as untrusted
// as a model, and a file's name inside a root is no proof that its
// content belongs there.
type Roots struct {
	dirs []string // absolute, symbolic links resolved
	// private are folders never attached from, inside a root or not: the
	// sessions' output folder holds every session's files and record,
	// which one client must not read of another's; quarry's settings hold
	// its keys. Absolute, as given.
	private []privateDir
}

// privateDir is a folder no client attaches from, and what it holds (for
// the refusal).
type privateDir struct{ dir, holds string }

// Folders quarry keeps from clients, by what they hold.
const (
	holdsSessions = "the MCP sessions' files and records (--output-dir)"
	holdsState    = "quarry's own settings and session index"
)

// NewRoots checks each folder; none means the working directory.
func NewRoots(dirs []string) (*Roots, error) {
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("the working directory: %w", err)
		}
		dirs = []string{wd}
	}
	r := &Roots{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w: name a folder that exists", d, unwrapPath(err))
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--root %s: is not a folder: name the folder whose files a client may attach", d)
		}
		r.dirs = append(r.dirs, abs)
	}
	return r, nil
}

// Private refuses every file under dir, even one inside a root; holds
// says what the folder holds. The folder need not exist yet; its links are
// followed at each check, so one made later counts too.
func (r *Roots) Private(dir, holds string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	r.private = append(r.private, privateDir{filepath.Clean(abs), holds})
	return nil
}

// Dirs are the roots, absolute.
func (r *Roots) Dirs() []string { return append([]string(nil), r.dirs...) }

// Resolve turns a client's path (absolute, or relative to the first root)
// into the host file it names, or says why it may not be attached. The
// reasons name the path as the client gave it, never where a link leads.
func (r *Roots) Resolve(p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", errors.New("give the path of a file inside " + r.list())
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("%q: a path cannot hold a NUL character", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return "", fmt.Errorf("%s: the path goes up with \"..\", which is refused: name the file by its path inside %s", p, r.list())
		}
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(r.dirs[0], full)
	}
	full = filepath.Clean(full)
	if r.holder(full) == "" {
		return "", fmt.Errorf("%s: is outside the folders quarry mcp serves (%s): only files inside them can be attached; start quarry mcp with --root for another folder", p, r.list())
	}
	real, err := filepath.EvalSymlinks(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: no such file in %s: check the name (relative paths start at %s)", p, r.list(), r.dirs[0])
	case err != nil:
		return "", fmt.Errorf("%s: %v", p, unwrapPath(err))
	case r.holder(real) == "":
		return "", fmt.Errorf("%s: is a symbolic link (or inside one) that leads outside the folders quarry mcp serves (%s), which is refused: copy the file into one of them", p, r.list())
	case r.hidden(full) || r.hidden(real):
		return "", fmt.Errorf("%s: is hidden, or inside a hidden folder (.ssh, .config, .aws…, where keys and credentials live), which is refused as Jupyter refuses it: copy the data file into a folder that is not hidden", p)
	}
	if holds := r.privateHolder(full, real); holds != "" {
		return "", fmt.Errorf("%s: is inside the folder that holds %s, which no client may attach from: attach the data file itself, or read the session's outputs with list_outputs", p, holds)
	}
	info, err := os.Lstat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %v", p, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return real, nil // CheckFile says what is wrong with it
	}
	n, err := links(real, info)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: how many names (hard links) the file has cannot be told (%v), which is refused: attach a copy of it instead", p, unwrapPath(err))
	case n > 1:
		return "", fmt.Errorf("%s: the file has %d names (hard links), and another may be outside the folders quarry mcp serves, which is refused: attach a copy of it instead", p, n)
	}
	return real, nil
}

var errNoLinkCount = errors.New("the system does not say")

// Recheck checks a path Resolve returned once more, right before the
// file is read: the file may have been swapped for a link (or a link put
// on its way) since. It must still resolve to itself and pass every
// check; and f, the handle it will be read through (nil: none yet), must
// be that file: the system names the file f holds (checkHandle), so a
// swap between the open and the check is refused, and one after it no
// longer matters, since only f is read.
func (r *Roots) Recheck(real string, f *os.File) error {
	again, err := r.Resolve(real)
	if err == nil && again != real {
		err = fmt.Errorf("%s: a symbolic link now stands on its path", real)
	}
	if err == nil && f != nil {
		err = checkHandle(real, f)
	}
	if err != nil {
		return fmt.Errorf("the file changed after it was checked, which is refused: %w", err)
	}
	return nil
}

// checkHandle tells whether f holds the file at real, with one name: the
// file's path as the system keeps it for the handle (handlePath), else
// the handle's and the path's identities compared.
func checkHandle(real string, f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %v", real, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: is not a regular file", real)
	}
	if n, err := links(real, info); err != nil || n > 1 {
		return fmt.Errorf("%s: the file opened has %d names (hard links), or their count cannot be told", real, n)
	}
	if held, err := handlePath(f); err == nil {
		if held != real {
			return fmt.Errorf("%s: the file opened is another one, reached through a link swapped in", real)
		}
		return nil
	}
	st, err := os.Lstat(real)
	if err != nil || !os.SameFile(st, info) {
		return fmt.Errorf("%s: the file opened is another one, reached through a link swapped in", real)
	}
	return nil
}

// holder is the root path lies in, or "".
func (r *Roots) holder(path string) string {
	for _, d := range r.dirs {
		if within(d, path) {
			return d
		}
	}
	return ""
}

// hidden says whether a part of path below its root starts with a dot:
// dot files and folders hold keys and settings, not data to attach.
func (r *Roots) hidden(path string) bool {
	root := r.holder(path)
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}

// privateHolder is what the private folder that one of paths lies in
// holds, by its name or by where the folder's links lead; "" for none.
func (r *Roots) privateHolder(paths ...string) string {
	for _, d := range r.private {
		for _, p := range paths {
			if within(d.dir, p) || within(realOf(d.dir), p) {
				return d.holds
			}
		}
	}
	return ""
}

// realOf is path with the links of its longest existing part followed.
func realOf(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path
	}
	return filepath.Join(realOf(parent), filepath.Base(path))
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (r *Roots) list() string { return strings.Join(r.dirs, ", ") }

// unwrapPath keeps an *fs.PathError's cause, without its host path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
