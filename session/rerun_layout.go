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

// layoutCode is the Python that makes the links, and the folders the
// notebook's code writes into (as it finds them in its folder in Jupyter),
// "" when there is neither. Each path is checked by checkRel. It runs in a
// function of its own, so the session's namespace gets no name of its.
func layoutCode(inputs []RerunInput, folders []string) (string, error) {
	for _, f := range folders {
		if err := checkRel(f); err != nil {
			return "", fmt.Errorf("%s: %w", f, err)
		}
	}
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
	if len(pairs) == 0 && len(folders) == 0 {
		return "", nil
	}
	if pairs == nil {
		pairs = [][2]string{}
	}
	links, _ := json.Marshal(pairs) // a JSON list of strings is a Python literal
	dirs, _ := json.Marshal(append([]string{}, folders...))
	return "def _quarry_layout():\n    import os\n" +
		"    for d in " + string(dirs) + ":\n        os.makedirs(d, exist_ok=True)\n" +
		"    for rel, src in " + string(links) + ":\n" +
		"        if os.path.dirname(rel):\n            os.makedirs(os.path.dirname(rel), exist_ok=True)\n" +
		"        if not os.path.lexists(rel):\n            os.symlink(src, rel)\n" +
		"_quarry_layout()\ndel _quarry_layout\n", nil
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
func (s *Session) makeLayout(ctx context.Context, inputs []RerunInput, folders []string) error {
	code, err := layoutCode(inputs, folders)
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
