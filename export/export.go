// Package export turns a session record into a Jupyter notebook (.ipynb),
// a Markdown report or one self-contained HTML page (notebooks are read
// back by package notebook). It reads the record (package session) and uses
// render to clean text; it must not import ui, headless, agent or sandbox.
//
// Everything in a record came from the model or the sandbox: each format
// escapes it for its reader. Terminal escapes go in every format; raw HTML
// in Markdown is neutralised; the HTML page has no script, loads nothing
// (a Content-Security-Policy says so to the browser) and embeds its figures.
package export

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// Format is an export format.
type Format string

const (
	Notebook Format = "ipynb"
	Markdown Format = "md"
	HTML     Format = "html"
	Workbook Format = "xlsx" // built in a sandbox: WriteReport
	PDF      Format = "pdf"  // built in a sandbox: WriteReport
)

// Formats are the formats Write offers, for a caller that lists them.
func Formats() []Format { return []Format{Notebook, Markdown, HTML} }

// AllFormats are every format quarry export writes: Write's, then those
// WriteReport builds.
func AllFormats() []Format { return append(Formats(), Workbook, PDF) }

// ParseFormat reads --format.
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimPrefix(s, ".")))
	switch {
	case slices.Contains(AllFormats(), f):
		return f, nil
	case f == "markdown":
		return Markdown, nil
	case f == "excel":
		return Workbook, nil
	}
	return "", fmt.Errorf("format %q: use %s", s, formatNames())
}

// formatNames is what --format accepts, in words: "ipynb, md, …, xlsx or pdf".
func formatNames() string {
	all := AllFormats()
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FormatOf tells the format from a file name's extension.
func FormatOf(path string) (Format, bool) {
	f, err := ParseFormat(filepath.Ext(path))
	return f, err == nil && filepath.Ext(path) != ""
}

// DefaultName is the file an export gets in the session folder.
func DefaultName(f Format) string {
	if f == Notebook {
		return "analysis.ipynb"
	}
	return "report." + string(f)
}

// Write exports rec to path: the file is written beside it and renamed
// over it when complete. A Markdown report outside the session folder gets
// its figures copied into <name>_files next to it. It returns the files
// written.
func Write(rec *session.Record, f Format, path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", path, err)
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return nil, fmt.Errorf("export %s: is a folder: name the file to write, e.g. %s", path, filepath.Join(path, DefaultName(f)))
	}
	if err := folderExists(path); err != nil {
		return nil, err
	}
	d := newDoc(rec)
	written := []string{abs}
	var render func(io.Writer) error
	switch f {
	case Notebook:
		render = func(w io.Writer) error { return writeNotebook(w, d) }
	case HTML:
		render = func(w io.Writer) error { return writeHTML(w, d) }
	case Markdown:
		links, copied, err := figureLinks(d, abs)
		if err != nil {
			return nil, err
		}
		written = append(written, copied...)
		render = func(w io.Writer) error { return writeMarkdown(w, d, links) }
	case Workbook, PDF:
		return nil, fmt.Errorf("export: %s is built in a sandbox: use WriteReport", f)
	default:
		return nil, fmt.Errorf("export: format %q: use %s", f, formatNames())
	}
	if err := writeAtomic(abs, render); err != nil {
		return nil, err
	}
	return written, nil
}

// Render writes rec in format f to w. A Markdown report links its figures
// by their absolute paths, since w has no place on disk.
func Render(w io.Writer, rec *session.Record, f Format) error {
	d := newDoc(rec)
	switch f {
	case Notebook:
		return writeNotebook(w, d)
	case HTML:
		return writeHTML(w, d)
	case Markdown:
		return writeMarkdown(w, d, func(fig kernel.File) string { return fig.Path })
	}
	return fmt.Errorf("export: format %q: use ipynb, md or html on standard output", f)
}

// folderExists refuses a file whose folder is missing: a mistyped folder
// is not made, with all its parents, behind the user's back.
func folderExists(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("export %s: the folder %s does not exist: check the path, or make the folder first (mkdir -p %s)", path, dir, dir)
	case err != nil:
		return fmt.Errorf("export %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("export %s: %s is a file, not a folder: check the path", path, dir)
	}
	return nil
}

func writeAtomic(path string, render func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	err = render(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}

// figureLinks says how the Markdown report at path links each figure: by
// its path relative to the report when the report sits in the session
// folder, else by a copy in <name>_files beside it.
func figureLinks(d *doc, path string) (func(kernel.File) string, []string, error) {
	dir := filepath.Dir(path)
	if inside(d.dir, dir) {
		return func(f kernel.File) string {
			rel, err := filepath.Rel(dir, f.Path)
			if err != nil {
				return f.Path
			}
			return filepath.ToSlash(rel)
		}, nil, nil
	}
	files := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + "_files"
	links := map[string]string{}
	var copied []string
	for _, t := range d.turns {
		for _, c := range t.Cells {
			for _, f := range c.Result.Figures {
				data, err := kernel.ReadPNG(f.Path)
				if err != nil {
					continue // the report says the figure is missing
				}
				name := filepath.Base(f.Path)
				target := filepath.Join(dir, files, name)
				if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
					return nil, nil, fmt.Errorf("export: %w", err)
				}
				if err := os.WriteFile(target, data, 0o644); err != nil {
					return nil, nil, fmt.Errorf("export: %w", err)
				}
				links[f.Path] = files + "/" + name
				copied = append(copied, target)
			}
		}
	}
	return func(f kernel.File) string { return links[f.Path] }, copied, nil
}

func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
