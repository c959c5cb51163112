package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/kernel"
)

// A notebook's code runs as in Jupyter, in its folder: the sandbox's
// working folder (/output, where what the code writes is harvested) gets
// the notebook's layout, each input a read-only link at its relative path
// to its copy in /data. The harvest takes regular files only, so the links
// never come back as outputs.

// layoutCode is the Python that makes the links, "" when no input has a
// relative path. Each path was checked by checkRel.
func layoutCode(inputs []RerunInput) (string, error) {
	var pairs [][2]string
	for _, in := range inputs {
		if in.Rel == "" {
			continue
		}
		if err := checkRel(in.Rel); err != nil {
			return "", fmt.Errorf("%s: %w", in.Rel, err)
		}
		pairs = append(pairs, [2]string{in.Rel, "/data/" + in.Name})
	}
	if len(pairs) == 0 {
		return "", nil
	}
	list, _ := json.Marshal(pairs) // a JSON list of strings is a Python literal
	return "import os as _os\nfor _rel, _src in " + string(list) + ":\n" +
		"    if _os.path.dirname(_rel):\n        _os.makedirs(_os.path.dirname(_rel), exist_ok=True)\n" +
		"    if not _os.path.lexists(_rel):\n        _os.symlink(_src, _rel)\ndel _os, _rel, _src\n", nil
}

// checkRel refuses a path that would leave the working folder.
func checkRel(rel string) error {
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == "." || strings.HasPrefix(rel, "../") || rel == ".." ||
		strings.ContainsAny(rel, "\\\x00\n\r") {
		return errors.New("not a path inside the notebook's folder")
	}
	return nil
}

// makeLayout runs layoutCode in the sandbox before the cells.
func (s *Session) makeLayout(ctx context.Context, inputs []RerunInput) error {
	code, err := layoutCode(inputs)
	if err != nil || code == "" {
		return err
	}
	r, err := s.sb.Replay(ctx, 0, code) // not a cell of the session
	if err != nil {
		return fmt.Errorf("the notebook's folder in the sandbox: %w", err)
	}
	if r.Error != nil {
		return fmt.Errorf("the notebook's folder in the sandbox: %s: %s", r.Error.Type, r.Error.Message)
	}
	s.mu.Lock()
	s.layout = code
	s.mu.Unlock()
	return nil
}

// remakeLayout makes the links again after the sandbox restarted (its
// working folder starts empty; /data is kept), so the notebook's relative
// paths work on; a note on r says when they could not be.
func (s *Session) remakeLayout(ctx context.Context, sb interface {
	Replay(context.Context, int, string) (kernel.Result, error)
}, r *kernel.Result) {
	s.mu.Lock()
	code := s.layout
	s.mu.Unlock()
	if code == "" {
		return
	}
	if res, err := sb.Replay(ctx, 0, code); err != nil || res.Error != nil {
		r.Notes = append(r.Notes, "the notebook's files could not be linked again after the restart: read them from /data")
	}
}

// CheckNotebookInput checks a file a notebook's code names inside its
// folder. One with the name of a kind quarry reads, or none, is checked as
// any attached file is (CheckFile: by its content). Any other name
// (notes.md, app.log) is no reason to refuse it, as the code opens it as it
// likes: it must be a readable regular file.
func CheckNotebookInput(p string) error {
	if filekind.DataName(p) {
		return CheckFile(p)
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file: the notebook's code reads it; put it back or give the file to use", p)
	case err != nil:
		return fmt.Errorf("%s: %v", p, err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s: is not a regular file: the notebook's code reads it as one", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("%s: cannot be read: %v", p, err)
	}
	return f.Close()
}
