package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/quarry-cli/quarry/render"
)

// A notebook's input that is not there is what Jupyter meets too: the run
// goes on to the cell that reads it, which fails with the kernel's own
// FileNotFoundError (and --allow-errors goes past it). It is named before
// the run with the way to give it; --strict-inputs refuses the run
// instead, for a rerun on next quarter's files that must have them all.

// missingInput is a notebook's input left out of a rerun.
type missingInput struct {
	name string // under /data
	path string // as the notebook names it
	cell int    // the code cell that reads it first; 0 when not known
}

// words says it for the user, in one line.
func (m missingInput) words(notebook string) string {
	who := render.SanitizeLine(notebook) + "'s code"
	if m.cell > 0 {
		who = fmt.Sprintf("%s's code cell %d", render.SanitizeLine(notebook), m.cell)
	}
	p := render.SanitizeLine(m.path)
	return fmt.Sprintf("%s reads %s, which is not there: that cell will fail as it does in Jupyter; give the file to use with --map %s=FILE (--strict-inputs refuses the run instead)",
		who, p, p)
}

// notThere tells whether an input's file is missing: where it was (path),
// or, for a file the notebook names outside its folder, there (named).
func notThere(path, named string) bool {
	if path == "" {
		path = named
	}
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// strictInputsFlag is --strict-inputs, for quarry rerun and a notebook's chat.
func strictInputsFlag(fs *pflag.FlagSet, v *bool) {
	fs.BoolVar(v, "strict-inputs", false, "refuse to run a notebook whose input files are not all there (by default the cells that read a missing one fail, as in Jupyter)")
}
