// Package demo is `quarry demo`: Q2's actuals, budget and ledger, small
// files shipped in the binary, and a scripted model that runs a variance
// report on them in the real sandbox (variance() and bridge(), then the
// follow-up a controller asks, why the cost most over budget is over,
// through explain(); the front end then writes the workbook and the PDF),
// so a first run shows quarry working
// before any model is set up. The script's code is real and runs in the kernel; its answer is built
// from what the cells returned. It must not import session, sandbox, ui or
// headless: cli wires it into the ordinary launch path.
package demo

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// Model is the name the scripted model goes by: in the status bar, the
// session record and `quarry sessions`.
const Model = "scripted-demo"

// Label says on screen, for the whole demo, what is real and what is not.
const Label = "demo: scripted model, real sandbox"

// Question is what the demo asks.
const Question = "Variance report: Q2 actuals against budget, line by line, with the bridge"

// DataDir is the folder of the session's output folder the files are
// written into, beside the figures (not /output: they are inputs).
const DataDir = "data"

//go:embed data/*.csv
var files embed.FS

// Names are the files' names, as they appear under /data in the sandbox:
// the two sides of the report, then the ledger the follow-up drills into
// (its lines with the budget at the same detail, by vendor and
// department, adding up to the actuals account by account and month by
// month).
var Names = []string{"actuals_q2.csv", "budget_q2.csv", "ledger_q2.csv"}

// Paths are where WriteFiles puts the files for a session folder.
func Paths(sessionDir string) []string {
	out := make([]string, len(Names))
	for i, n := range Names {
		out[i] = filepath.Join(sessionDir, DataDir, n)
	}
	return out
}

// WriteFiles writes the budget files into the session folder's data
// folder, which the sandbox has made by then; an existing file is not
// replaced.
func WriteFiles(sessionDir string) error {
	dir := filepath.Join(sessionDir, DataDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return fmt.Errorf("demo files: %w", err)
	}
	for i, n := range Names {
		b, err := files.ReadFile("data/" + n)
		if err != nil {
			return fmt.Errorf("demo files: %w", err)
		}
		f, err := os.OpenFile(Paths(sessionDir)[i], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("demo files: %w", err)
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("demo files: %w", err)
		}
	}
	return nil
}
