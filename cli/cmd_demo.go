package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/demo"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/ui"
)

// demoCmd is `quarry demo [-p]`: the variance report on the files
// shipped in the binary, in the real chat (or headless) and the real
// sandbox, with the model's side scripted.
func (a *app) demoCmd() *cobra.Command {
	f := &rootFlags{warm: -1} // the config's warm
	var headless bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "See quarry work without a model: a scripted variance report in the real sandbox",
		Long: `Runs a variance report on two small files shipped in quarry, Q2's
actuals and budget (actuals_q2.csv and budget_q2.csv, ten accounts by
month), in the chat and the real sandbox, before any model is set up. The
model's side is a script, and says so on screen: it needs no key and no
network, but the code it writes (variance() and bridge()) runs for real in
the networkless sandbox, and its answer is made of what the cells printed.
It ends with the report written, a formatted workbook and a PDF in the
session's folder (report.xlsx, report.pdf), and with how to connect a real
model.

The files are written into the session's folder (data/) and attached as any
file is. The session is saved like every other, under the model name
scripted-demo, so quarry sessions shows it for what it is; export and rerun
work on it, and --resume continues it with your configured model.

With -p the same report runs headless: progress on standard error, the
answer on standard output, the workbook and the PDF written (--json lists
them under report), exit status 0 when it ran.`,
		Example: `quarry demo
quarry demo -p > demo.md
quarry demo -p --json | jq -r .answer`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if (f.jsonOut || f.quiet) && !headless {
				return usagef(c, "--json and --quiet go with -p")
			}
			f.demo = &demoRun{script: &demo.Script{}}
			f.reports = defaultReport // the demo ends with the report written
			if headless {
				f.prompt, f.promptSet = demo.Question, true
				return a.headless(c.Context(), f)
			}
			return a.chat(c.Context(), f)
		},
	}
	fs := c.Flags()
	fs.BoolVarP(&headless, "print", "p", false, "run headless: print the answer and exit, as quarry -p does")
	fs.BoolVar(&f.jsonOut, "json", false, "with -p: print one JSON document instead of Markdown")
	fs.BoolVar(&f.quiet, "quiet", false, "with -p: no progress on standard error")
	fs.StringVar(&f.overrides.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	fs.StringVar(&f.overrides.OutputDir, "output-dir", "", "folder for the files, figures and record (default ./quarry-output/<session>)")
	fs.StringVar(&f.overrides.Images, "images", "", "figures: auto, kitty, iterm, sixel, blocks or off")
	fs.SortFlags = false
	return c
}

// demoNotice opens the demo's chat; the status bar keeps demo.Label.
const demoNotice = "This is quarry's demo: the model's side is a script (no key, no network), the sandbox and the code it runs are real. It asks its question by itself; watch."

// demoModelNote is /model in the demo: the script cannot be switched for
// a model (the record keeps scripted-demo), and how to go on with one.
func demoModelNote(id string) string {
	return "The demo's model is a script, so /model does not switch it: the session stays recorded as " + demo.Model + ". " +
		"To ask a real model, set one up (export OPENAI_API_KEY=sk-..., OPENAI_BASE_URL for another service, a local Ollama, or quarry config init), " +
		"then /quit and run quarry --resume " + id + " to go on with this session, or quarry FILE... for a new one."
}

// demoRun is what the demo adds to a front end's launch: the script as
// the model, and the files written once the session's folder exists.
type demoRun struct{ script *demo.Script }

func (d *demoRun) launchOptions(o *launchOptions) {
	o.scripted = true
	o.agent = func(c *agent.Config) {
		c.Script, c.Model, c.ToolMode = d.script, demo.Model, "native"
	}
}

// opened points the script at the session's data folder, for its closing
// hint; the files themselves are written by ready.
func (d *demoRun) opened(s *session.Session) []string {
	paths := demo.Paths(s.OutputDir())
	d.script.Dir = relativeDir(paths[0])
	return paths
}

// ready writes the files once the sandbox has made the session's folder.
func (d *demoRun) ready(s *session.Session) error {
	return demo.WriteFiles(s.OutputDir())
}

// demoBackend is the chat's session in the demo: the files are written
// between the sandbox's start and their upload, which waits for Start.
type demoBackend struct {
	chatBackend
	d *demoRun
}

var _ ui.Backend = demoBackend{}

func (b demoBackend) Start(ctx context.Context) error {
	if err := b.chatBackend.Start(ctx); err != nil {
		return err
	}
	return b.d.ready(b.Session)
}

// relativeDir is path's folder as the user would type it from here.
func relativeDir(path string) string {
	dir := filepath.Dir(path)
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return dir
}
