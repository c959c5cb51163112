package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/headless"
	"github.com/quarry-cli/quarry/notebook"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
)

type rerunFlags struct {
	maps        []string
	allowErrors bool
	strict      bool // --strict-inputs: a notebook's missing input refuses the run up front
	jsonOut     bool
	quiet       bool
	format      string
	report      string // --report: the variance report's formats (cli/report.go)
	overrides   config.Overrides
}

// rerunCmd is `quarry rerun ID|NOTEBOOK.ipynb [FILE...]`.
func (a *app) rerunCmd() *cobra.Command {
	f := &rerunFlags{}
	c := &cobra.Command{
		Use:   "rerun ID|NOTEBOOK.ipynb [FILE...]",
		Short: "Run a session's (or a notebook's) code again on new files, without the model",
		Long: `Run the code cells of a saved session, or of a Jupyter notebook, again in a
fresh sandbox on new input files. No model is called: it works without an API
key or a model server.

The new files take the place of the old ones in order (FILE... replaces the
inputs as the session attached them), or by name (--map q1.csv=q3.csv); an
input not replaced is read from where it was. The code reads each new file
where it read the old one. Before any cell runs the new files are profiled
and compared with the old ones: missing or new columns and changed types are
reported.

The cells that succeeded in the session run in order (in a notebook, every
code cell but those tagged raises-exception or skip-execution); the first
that fails stops the rerun, unless --allow-errors, which runs them all as
jupyter nbconvert --execute --allow-errors does. A notebook's code runs as
in Jupyter, in the notebook's folder: every file inside it the code names
is an input at the same relative path, whatever its kind, and what the code
writes goes to the rerun's folder. A file outside the folder is read only
when you name it. IPython's syntax runs as IPython runs it, shell lines
(!ls, x = !wc -l f, %%bash) inside the sandbox; what has no meaning there
(%run, %cd, ...) is refused by the kernel before any cell runs. Each cell's
outputs are compared with those the notebook holds, by their values: same,
changed (what moved) or new (fails now).

The rerun is a session of its own: its folder holds the new figures and
files and a report (--format md, html or ipynb; default md), and with
--report xlsx,pdf the variance report from the new files (the workbook and
the PDF, built in a sandbox of their own; html too),
and standard output carries the report in Markdown (or JSON with --json).

Exit status: 0 every cell ran (with --allow-errors, also when some failed);
1 a cell failed (the report names it and shows its traceback); 2 bad input
(session, notebook, files, flags, IPython syntax that does not run); 130
interrupted.`,
		Example: `quarry rerun 20261129-173235-3761b5 q3.csv q4.csv
quarry rerun latest --map q1.csv=q3.csv --map q2.csv=q4.csv --format html
quarry rerun analysis.ipynb sales-2026q3.csv --json | jq .status`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(c, "name what to rerun: a session id (quarry sessions lists them) or a .ipynb notebook")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if ff, err := export.ParseFormat(f.format); err != nil || ff.Built() {
				return usagef(c, "--format %s: use md, html or ipynb (the workbook and the PDF: --report xlsx,pdf)", f.format)
			}
			if c.Flags().Changed("report") {
				if _, err := parseReport(f.report); err != nil {
					return usagef(c, "%v", err)
				}
			}
			return a.rerun(c, args[0], args[1:], f)
		},
	}
	fs := c.Flags()
	fs.StringArrayVar(&f.maps, "map", nil, "use file NEW for the input OLD (OLD=NEW, by name; repeatable)")
	fs.StringVar(&f.overrides.OutputDir, "output-dir", "", "folder for the rerun's figures, files and report (default ./quarry-output/<new session>)")
	fs.StringVar(&f.format, "format", "md", "the report written into the output folder: md, html or ipynb")
	fs.StringVar(&f.report, "report", "", "also write the variance report from the new files: xlsx, pdf, html, comma-separated")
	strictInputsFlag(fs, &f.strict)
	fs.BoolVar(&f.allowErrors, "allow-errors", false, "run every cell, also after one fails (as jupyter nbconvert --execute --allow-errors); the report marks each failed cell")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON document instead of the Markdown report")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on standard error")
	fs.StringVar(&f.overrides.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	timeoutFlag(fs, &f.overrides.Timeout)
	fs.StringArrayVar(&f.overrides.DB, "db", nil, "a database the cells' sql(query, db=NAME) reads: "+source.Examples()+" (repeatable; [sources.NAME] in the config works too)")
	fs.StringVar(&f.overrides.Profile, "profile", "", "profile from the config file (its sources among its settings)")
	daskFlag(fs, &f.overrides.Dask)
	return c
}

// rerunPlan is what will run: the cells, and a host file for each input.
type rerunPlan struct {
	source  string // the session id or the notebook's path
	turns   []session.Turn
	inputs  []session.RerunInput
	stored  []notebook.StoredOutputs // a notebook's outputs, one per cell in order
	skipped []notebook.Skipped       // a notebook's code cells left out (skip-execution)
	text    string                   // a notebook's Markdown
	extras  []session.RecordedExtra  // the packages the session had added to its sandbox
	dask    string                   // the Dask cluster the session's cells reached, by name
	missing []missingInput           // a notebook's inputs not there: the cells that read them fail, as in Jupyter
	folders []string                 // the folders a notebook's code writes into (notebook.RerunNotebook.Folders)
}

func (a *app) rerun(c *cobra.Command, source string, files []string, f *rerunFlags) error {
	plan, err := planRerun(source, files, f.maps, f.strict)
	if err != nil {
		return inputError{err}
	}
	for _, m := range plan.missing {
		fmt.Fprintln(a.notes, "quarry: warning: "+m.words(filepath.Base(plan.source)))
	}
	cfg, err := config.Load(f.overrides)
	if err != nil {
		return inputError{err}
	}
	if f.overrides.OutputDir != "" {
		if err := session.CheckOutputDir(f.overrides.OutputDir); err != nil {
			return inputError{err}
		}
	} else if cfg.OutputDir != "" {
		if err := session.CheckOutputParent(cfg.OutputDir, cfg.Source("output_dir")); err != nil {
			return inputError{err}
		}
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sources, err := openSources(ctx, cfg) // a rerun reads today's data
	if err != nil {
		return inputError{err}
	}
	if cfg.Dask.Address == "" && plan.dask != "" {
		cfg.Dask.Address = plan.dask // the cluster by name; --dask points the rerun at another
	}
	cluster, err := openCluster(cfg)
	if err != nil {
		return inputError{err}
	}
	progress := headless.New(headless.Options{Quiet: f.quiet, Stderr: a.stderr})
	defer progress.Stop()
	progress.Note("rerunning " + render.SanitizeLine(plan.source) + " without a model")
	res, err := session.Rerun(ctx, session.RerunOptions{
		Options:     session.Options{Config: cfg, OutputDir: f.overrides.OutputDir, Events: progress.Event, Build: a.build.Version, Sources: sources, Cluster: cluster},
		Source:      plan.source,
		Inputs:      plan.inputs,
		Folders:     plan.folders,
		Turns:       plan.turns,
		AllowErrors: f.allowErrors,
		Extras:      plan.extras,
		Compared: func(changes []session.InputChange) {
			for _, ch := range changes {
				for _, l := range ch.Lines() {
					progress.Note("warning: " + render.SanitizeLine(ch.Name+": "+l))
				}
			}
		},
	})
	progress.Stop()
	if ctx.Err() != nil {
		return interrupted{"interrupted"}
	}
	var refused *session.RefusedError
	if errors.As(err, &refused) {
		return inputError{errors.New(render.Sanitize(err.Error()))} // the kernel's rules, before any cell ran
	}
	if err != nil {
		return fmt.Errorf("rerun: %s", render.Sanitize(err.Error()))
	}
	rec, err := session.LoadRecord(res.Dir)
	if err != nil {
		return err
	}
	format, _ := export.ParseFormat(f.format)
	report := filepath.Join(res.Dir, export.DefaultName(format))
	if _, err := export.Write(rec, format, report); err != nil {
		return err
	}
	reports, reportErr := rerunReport(ctx, f.report, res.Dir, cfg, a.notes)
	compared := compareCells(rec, plan.stored)
	if f.jsonOut {
		err = writeRerunJSON(a.stdout, rec, res, report, compared, plan, reports)
	} else if err = export.Render(a.stdout, rec, export.Markdown); err == nil {
		err = writeComparison(a.stdout, compared, plan.skipped)
	}
	if err != nil {
		return fmt.Errorf("writing the report: %v", err)
	}
	fmt.Fprintf(a.notes, "quarry: the rerun's figures, files and %s are in %s\n", filepath.Base(report), res.Dir)
	if reportErr != nil {
		return reportErr
	}
	if line := comparisonSummary(compared); line != "" {
		fmt.Fprintln(a.notes, "quarry: "+line)
	}
	for _, c := range plan.skipped {
		fmt.Fprintf(a.notes, "quarry: the notebook's code cell %d was skipped: %s\n", c.Num, c.Why)
	}
	switch {
	case len(res.Failed) > 0 && f.allowErrors:
		for _, c := range res.Failed {
			fmt.Fprintf(a.notes, "quarry: cell %d failed: %s\n", c.Num, render.SanitizeLine(failureLine(&c)))
		}
		fmt.Fprintf(a.notes, "quarry: every cell ran (--allow-errors); %d failed\n", len(res.Failed))
	case len(res.Failed) > 0:
		c := res.Failed[0]
		fmt.Fprintf(a.notes, "quarry: cell %d failed: %s; the cells after it did not run\n", c.Num,
			render.SanitizeLine(failureLine(&c)))
		return silent{code: exitFailed}
	}
	return nil
}

func failureLine(c *session.Cell) string {
	e := c.Result.Error
	if e.Type != "" {
		return e.Type + ": " + e.Message
	}
	return e.Message
}

// planRerun reads what to rerun and settles a file for each input:
// positional files in order, --map by name, else the file where it was.
// A notebook's input that is not where it was is left out and named in
// plan.missing, so the run goes as Jupyter's would, up to the cell that
// reads it; strict refuses it up front instead, as a session's is.
func planRerun(source string, files, maps []string, strict bool) (*rerunPlan, error) {
	plan := &rerunPlan{source: source}
	var originals []session.Input
	outside := map[string]string{} // a notebook's input named outside its folder: read only when given
	rels := map[string]string{}    // a notebook's input inside its folder: where its code finds it
	cells := map[string]int{}      // a notebook's input: the code cell that reads it first
	isNB := strings.EqualFold(filepath.Ext(source), ".ipynb")
	if isNB {
		nb, err := notebook.ReadNotebook(source)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(source)
		plan.source, plan.turns, plan.stored, plan.skipped, plan.text = abs, nb.Turns, nb.Stored, nb.Skipped, nb.Text
		plan.folders = nb.Folders
		for _, in := range nb.Inputs {
			cells[in.Name] = in.Cell
			originals = append(originals, session.Input{Name: in.Name, Path: in.Path, Profile: in.Profile})
			if in.Named != "" {
				outside[in.Name] = in.Named
			}
			if in.Rel != "" {
				rels[in.Name] = in.Rel
			}
		}
	} else {
		rec, err := session.FindSession(session.DefaultIndex(), source)
		if err != nil {
			return nil, err
		}
		plan.source, plan.turns, originals = rec.ID, rec.RerunTurns(), rec.Inputs()
		plan.extras = rec.Extras()
		plan.dask = rec.Dask()
	}
	if len(files) > len(originals) {
		return nil, fmt.Errorf("%d files given for %d inputs (%s): give at most one file per input", len(files), len(originals), inputNames(originals))
	}
	match := func(old string) (session.Input, bool) {
		for _, in := range originals {
			if old == in.Name || old == in.Path || old == outside[in.Name] || filepath.Base(old) == in.Name ||
				(rels[in.Name] != "" && filepath.ToSlash(filepath.Clean(old)) == rels[in.Name]) {
				return in, true
			}
		}
		return session.Input{}, false
	}
	mapped, err := parseMaps(maps, match, func(in session.Input, path string) error {
		if rels[in.Name] != "" {
			return session.CheckNotebookInput(path) // its code opens it as it likes
		}
		return session.CheckFile(path)
	})
	if err != nil {
		return nil, err
	}
	for i, in := range originals {
		path, how := in.Path, "where it was"
		if i < len(files) {
			if _, ok := mapped[in.Name]; ok {
				return nil, fmt.Errorf("%s is given twice: as file %d and with --map", in.Name, i+1)
			}
			path, how = files[i], "given"
		}
		if p, ok := mapped[in.Name]; ok {
			path, how = p, "given"
		}
		if isNB && !strict && how == "where it was" && notThere(path, outside[in.Name]) {
			where := rels[in.Name]
			if where == "" {
				where = cmp.Or(outside[in.Name], in.Name)
			}
			plan.missing = append(plan.missing, missingInput{name: in.Name, path: where, cell: cells[in.Name]})
			continue
		}
		if path == "" && outside[in.Name] != "" {
			return nil, fmt.Errorf("%s: the notebook reads it from %s, outside the notebook's folder, and quarry reads no file a notebook chooses there: "+
				"give the file to use as an argument or with --map %s=FILE (--map %s=%s to use that one)", in.Name, outside[in.Name], in.Name, in.Name, outside[in.Name])
		}
		if path == "" {
			return nil, fmt.Errorf("%s: its file is not known: give it as an argument or with --map %s=FILE", in.Name, in.Name)
		}
		check := session.CheckFile
		if rels[in.Name] != "" {
			check = session.CheckNotebookInput // its code opens it as it likes
		}
		if err := check(path); err != nil {
			if how != "given" {
				return nil, fmt.Errorf("%s (read %s): %w\nGive the file to use as an argument or with --map %s=FILE", in.Name, how, err, in.Name)
			}
			return nil, err
		}
		plan.inputs = append(plan.inputs, session.RerunInput{Name: in.Name, Path: path, Was: in.Profile, Rel: rels[in.Name]})
	}
	if len(plan.turns) == 0 || countCells(plan.turns) == 0 {
		return nil, errors.New(source + " has no cells that ran: there is nothing to rerun")
	}
	return plan, nil
}

func inputNames(ins []session.Input) string {
	if len(ins) == 0 {
		return "none"
	}
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}

func countCells(turns []session.Turn) int {
	n := 0
	for _, t := range turns {
		n += len(t.Cells)
	}
	return n
}
