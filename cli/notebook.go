package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/ui"
)

// quarry NOTEBOOK.ipynb [FILE...]: the chat continues a notebook. Its code
// cells run in the kernel as the chat opens, with the inputs and refusals
// of a rerun (planRerun); FILE... are more files for the chat, and --map
// replaces one of the notebook's inputs.

// isNotebook tells whether the chat's first file is a notebook to continue.
func isNotebook(files []string) bool {
	return len(files) > 0 && strings.EqualFold(filepath.Ext(files[0]), ".ipynb")
}

// laterNotebook tells a notebook among the files after the first.
func laterNotebook(files []string) bool {
	for i := 1; i < len(files); i++ {
		if isNotebook(files[i:]) {
			return true
		}
	}
	return false
}

// openNotebook reads the notebook and settles its inputs, before anything
// starts: every error is bad input. missing says, a line each, the inputs
// that are not there (the cells that read them fail, as in Jupyter).
func openNotebook(path string, maps []string, strict bool) (nb *session.NotebookRun, missing []string, err error) {
	plan, err := planRerun(path, nil, maps, strict)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range plan.missing {
		missing = append(missing, m.words(filepath.Base(path)))
	}
	nb = &session.NotebookRun{Name: filepath.Base(path), Inputs: plan.inputs, Folders: plan.folders, Text: plan.text}
	for _, t := range plan.turns {
		for _, c := range t.Cells {
			nb.Cells = append(nb.Cells, session.Cell{Num: c.Num, Code: c.Code}) // the notebook's code cell, for the kernel's check
		}
	}
	return nb, missing, nil
}

// notebookResume is the chat's opening for a notebook: nothing past to
// show, the cells run (and show) in Restore.
func notebookResume(sess *session.Session, nb *session.NotebookRun, missing []string) *ui.Resume {
	name := render.SanitizeLine(nb.Name)
	r := &ui.Resume{
		ID: name,
		Notice: fmt.Sprintf("Continuing the notebook %s: its %d code cells run in the kernel now, then the model sees them with their outputs.",
			name, len(nb.Cells)),
	}
	for _, m := range missing {
		r.Notice += "\nWarning: " + m
	}
	for _, in := range nb.Inputs {
		r.Inputs = append(r.Inputs, in.Path)
	}
	r.Restore = func(ctx context.Context, _ map[string]string) ([]ui.RestoredInput, error) {
		err := sess.ContinueNotebook(ctx, *nb)
		var out []ui.RestoredInput
		for _, p := range sess.Files() {
			for _, in := range nb.Inputs {
				if in.Name == p.Name {
					out = append(out, ui.RestoredInput{Path: in.Path, Profile: p})
				}
			}
		}
		return out, err
	}
	return r
}
