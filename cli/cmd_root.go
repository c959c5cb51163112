package cli

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/session"
)

// rootFlags are the flags of the chat and the headless mode.
type rootFlags struct {
	prompt    string
	promptSet bool // -p was given, even empty: a headless run, never the chat
	jsonOut   bool
	quiet     bool
	verbose   bool
	// allowInstall adds the Debian packages a cell lacks without asking
	// (-p has no one to ask: without it the run stops naming the command).
	allowInstall bool
	overrides    config.Overrides
	files        []string             // positional arguments: after "--" even ones that start with a dash
	resume       string               // --resume: a session id, or session.Latest
	maps         []string             // --map OLD=NEW, for a resumed session's inputs
	demo         *demoRun             // quarry demo: a scripted model on the shipped files
	notebook     *session.NotebookRun // quarry NOTEBOOK.ipynb: the notebook the chat continues
	missing      []string             // the notebook's inputs not there, said before it runs (rerun_missing.go)
	strict       bool                 // --strict-inputs
	report       string               // --report: the formats, as given
	reports      []export.Format      // --report, read (cli/report.go); the demo's own
	warm         int                  // --warm: -1 unset (the config's warm)
}

const rootLong = `quarry: ask questions about your data files and databases; a model writes
pandas code that runs in a local sandbox with no network (Docker or Podman).

With -p, --prompt, standard output carries only the answer (Markdown, or JSON
with --json); progress goes to standard error. Exit status: 0 answered; 1 the
run failed (model or sandbox); 2 bad usage or input, found before anything
starts; 130 interrupted.

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, QUARRY_MODEL and QUARRY_*
(quarry config --help lists them). Flags win over the environment, the
environment over the config file.`

const rootExample = `# see quarry work before any model is set up: a scripted demo, real sandbox
quarry demo
# open the chat with files attached
quarry q1.csv q2.csv
# answer one prompt, print the answer and exit: quarry -p PROMPT [FILE...]
quarry -p "variance by department, Q1 vs Q2" q1.csv q2.csv
# the same, reading the prompt from standard input
echo "summarise" | quarry -p - data.csv
# data piped on standard input is attached (stdin.csv)
cat data.csv | quarry -p "summarise"
# continue a notebook someone wrote: its cells run, then ask on
quarry analysis.ipynb
# list the saved sessions; continue the latest one, or one by id
quarry sessions
quarry --resume
quarry -p "and by month?" --resume 20261129-173235-3761b5
# the session as a notebook, a Markdown or an HTML report
quarry export 20261129-173235-3761b5 --format html -o report.html
# the same analysis on next quarter's files, without the model
quarry rerun 20261129-173235-3761b5 q3.csv q4.csv
# build the sandbox image, or tell its state or tag
quarry sandbox build|status|ref
# carry the image to a machine with no registry or mirror
quarry sandbox save|load FILE
# show the effective settings; write a commented config file; is a model set up?
quarry config -v
quarry config init
quarry config check
# check the engine, the image, a sandbox and its limits, the model, the terminal
quarry doctor
# print version, commit and build date (also --version)
quarry version`

// mainCommand is `quarry [FILE...]`: the chat, or with --prompt one
// headless answer.
func (a *app) mainCommand() *cobra.Command {
	f := &rootFlags{}
	c := &cobra.Command{
		Use:     "quarry [FILE...]",
		Short:   "Ask questions about your data files and databases",
		Long:    rootLong,
		Example: rootExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			f.files = args
			f.promptSet = c.Flags().Changed("prompt")
			f.takeResumeID()
			if err := commandSuggestion(c, f.files); err != nil {
				return err
			}
			if err := f.check(c); err != nil {
				return err
			}
			if isNotebook(f.files) {
				nb, missing, err := openNotebook(f.files[0], f.maps, f.strict)
				if err != nil {
					return inputError{err}
				}
				f.notebook, f.missing, f.files = nb, missing, f.files[1:]
			}
			if f.promptSet {
				return a.headless(c.Context(), f)
			}
			return a.chat(c.Context(), f)
		},
	}
	fs := c.Flags()
	fs.StringVarP(&f.prompt, "prompt", "p", "", "answer this prompt and exit; - reads it from standard input")
	fs.BoolVar(&f.jsonOut, "json", false, "headless: print one JSON document instead of Markdown")
	fs.BoolVar(&f.quiet, "quiet", false, "headless: no progress on standard error")
	fs.BoolVar(&f.verbose, "verbose", false, "headless: also show the model's thinking (reasoning models) on standard error")
	fs.BoolVar(&f.allowInstall, "allow-install", false, "add the Debian package a cell lacks (import xgboost) without asking, from the signed archive as quarry sandbox add does")
	fs.StringVar(&f.resume, "resume", "", "continue a saved session: its id, or the latest without one (quarry sessions lists them)")
	fs.Lookup("resume").NoOptDefVal = session.Latest
	fs.StringArrayVar(&f.maps, "map", nil, "with --resume or a notebook: use file NEW for the input OLD (OLD=NEW, repeatable)")
	strictInputsFlag(fs, &f.strict)
	fs.StringVar(&f.report, "report", "", "headless: also write the report: xlsx, pdf, html, comma-separated (in the chat: /report)")
	fs.IntVar(&f.warm, "warm", -1, "headless: take a sandbox kept started, and keep N started for the next runs (quarry sandbox warm); 0 for none (default: the config's warm, 0)")
	addConfigFlags(fs, &f.overrides)
	fs.SortFlags = false
	return c
}

// check refuses flag combinations and values that cannot work.
func (f *rootFlags) check(c *cobra.Command) error {
	o := f.overrides
	switch {
	case o.Timeout < 0 || (o.Timeout > 0 && o.Timeout < 100*time.Millisecond):
		return usagef(c, "--timeout %s is too short: give a duration such as 30s", o.Timeout)
	case o.MaxSteps < 0:
		return usagef(c, "--max-steps must be positive")
	case (f.jsonOut || f.quiet || f.verbose) && !f.promptSet:
		return usagef(c, "--json, --quiet and --verbose go with --prompt")
	case f.warm != -1 && !f.promptSet:
		return usagef(c, "--warm goes with --prompt (the chat starts its sandbox while it draws)")
	case f.warm < -1 || f.warm > 32:
		return usagef(c, "--warm %d: give 0 (none) up to 32", f.warm)
	case f.quiet && f.verbose:
		return usagef(c, "--quiet and --verbose contradict each other: choose one")
	case f.promptSet && o.Confirm:
		return usagef(c, "--confirm needs the chat to ask you about each cell; it does not go with --prompt")
	case laterNotebook(f.files):
		return usagef(c, "name the notebook first: quarry NOTEBOOK.ipynb [FILE...] continues one notebook, with more files for the chat")
	case f.resume != "" && isNotebook(f.files):
		return usagef(c, "--resume continues a saved session; a notebook is continued by naming it alone: quarry %s", f.files[0])
	case len(f.maps) > 0 && f.resume == "" && !isNotebook(f.files):
		return usagef(c, "--map goes with --resume, a notebook (quarry NOTEBOOK.ipynb) or quarry rerun")
	case f.strict && !isNotebook(f.files):
		return usagef(c, "--strict-inputs goes with a notebook (quarry NOTEBOOK.ipynb) or quarry rerun")
	case f.resume != "" && o.OutputDir != "":
		return usagef(c, "a resumed session keeps its own folder: --output-dir does not go with --resume")
	case c.Flags().Changed("report") && !f.promptSet:
		return usagef(c, "--report goes with --prompt; in the chat, /report writes it")
	}
	if c.Flags().Changed("report") {
		r, err := parseReport(f.report)
		if err != nil {
			return usagef(c, "%v", err)
		}
		f.reports = r
	}
	return nil
}

// takeResumeID reads `--resume ID` (with a space) as the id: an optional
// value only binds with "=", so the id arrives as the first file. It is
// taken for an id when it is no file and has an id's shape, or no file's
// (no extension, no folder), so a mistyped id is told as a session.
func (f *rootFlags) takeResumeID() {
	if f.resume != session.Latest || len(f.files) == 0 {
		return
	}
	a := f.files[0]
	if _, err := os.Stat(a); err == nil {
		return
	}
	if !session.LooksLikeID(a) && (strings.ContainsAny(a, "./"+string(os.PathSeparator)) || a == "") {
		return
	}
	f.resume, f.files = f.files[0], f.files[1:]
}
