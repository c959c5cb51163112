package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/ui"
)

// The report people pass on, wherever it is asked for: --report on -p and
// rerun, /report in the chat, quarry export --format xlsx|pdf, and the
// demo's end. The workbook and the PDF are built in a sandbox of their own
// (session.Builder); the HTML page on the host.

// reportFormats are what --report and /report take.
var reportFormats = []export.Format{export.Workbook, export.PDF, export.HTML}

// defaultReport is what /report and the demo write.
var defaultReport = []export.Format{export.Workbook, export.PDF}

// parseReport reads --report: formats separated by commas (or spaces).
func parseReport(s string) ([]export.Format, error) {
	var out []export.Format
	seen := map[export.Format]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		f, err := export.ParseFormat(w)
		if err != nil || !isReportFormat(f) {
			return nil, fmt.Errorf("--report %s: %q is not a report format: use xlsx, pdf or html, separated by commas", s, w)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--report needs formats: xlsx, pdf or html, separated by commas (--report xlsx,pdf)")
	}
	return out, nil
}

// builtReport tells whether formats ask for a file the builder writes.
func builtReport(formats []export.Format) bool {
	for _, f := range formats {
		if f.Built() {
			return true
		}
	}
	return false
}

func isReportFormat(f export.Format) bool {
	for _, r := range reportFormats {
		if f == r {
			return true
		}
	}
	return false
}

// writeReport writes the report of the session in dir.
func writeReport(ctx context.Context, dir string, b export.Builder, o export.ReportOptions) ([]string, error) {
	rec, err := session.LoadRecord(dir)
	if err != nil {
		return nil, err
	}
	return export.WriteReport(ctx, rec, b, o)
}

// chatReport is /report: alone the workbook and the PDF into the
// session's folder; with formats (xlsx pdf html) those; with a file name
// (.xlsx, .pdf or .html) that file. Its plan checks the words and the
// record before anything is written, replaces no file (the folder's names
// get a free suffix, report-2.pdf; a file named that exists is refused)
// and refuses a session with nothing to report.
func chatReport(s *session.Session) func(arg string) (ui.ReportPlan, error) {
	return func(arg string) (ui.ReportPlan, error) {
		o, err := parseChatReport(arg)
		if err != nil {
			return ui.ReportPlan{}, err
		}
		dir := s.OutputDir()
		rec, err := session.LoadRecord(dir)
		if err != nil {
			return ui.ReportPlan{}, err
		}
		if err := reportable(rec); err != nil {
			return ui.ReportPlan{}, err
		}
		plan, err := reportTargets(dir, &o)
		if err != nil {
			return ui.ReportPlan{}, err
		}
		b := s.Builder()
		plan.Write = func(ctx context.Context) ([]string, error) { return export.WriteReport(ctx, rec, b, o) }
		return plan, nil
	}
}

// reportable refuses a session with nothing to report: no question since
// it began, or since /reset (the report, like export, starts there).
func reportable(rec *session.Record) error {
	if len(rec.Turns()) == 0 {
		return errors.New("nothing to report yet: no question has been answered in this session (since /reset, if it was used): ask one, then /report")
	}
	return nil
}

// parseChatReport reads /report's words: formats, or files by their
// extension.
func parseChatReport(arg string) (export.ReportOptions, error) {
	o := export.ReportOptions{Formats: defaultReport, Paths: map[export.Format]string{}}
	if strings.TrimSpace(arg) == "" {
		return o, nil
	}
	o.Formats = nil
	seen := map[export.Format]bool{}
	for _, w := range strings.Fields(arg) {
		f, err := export.ParseFormat(w)
		named := err != nil || !isReportFormat(f) || strings.ContainsAny(w, "/.")
		if named {
			var ok bool
			if f, ok = export.FormatOf(w); !ok || !isReportFormat(f) {
				return o, fmt.Errorf("%s: name xlsx, pdf or html, or a .xlsx, .pdf or .html file", w)
			}
		}
		if seen[f] {
			return o, fmt.Errorf("%s: the %s is asked for twice: one file of each format", w, f)
		}
		seen[f] = true
		o.Formats = append(o.Formats, f)
		if named {
			o.Paths[f] = w
		}
	}
	return o, nil
}

// reportTargets fills in o's paths so that nothing is replaced: the
// formats not given a file share one free name in dir, a file given is
// checked; the plan names them in order.
func reportTargets(dir string, o *export.ReportOptions) (ui.ReportPlan, error) {
	var plan ui.ReportPlan
	var unnamed []export.Format
	var defaults []string
	for _, f := range o.Formats {
		if p := o.Paths[f]; p != "" {
			if err := session.CheckNewOutput(p); err != nil {
				return plan, err
			}
			continue
		}
		unnamed = append(unnamed, f)
		defaults = append(defaults, export.DefaultName(f))
	}
	for i, name := range session.FreeNames(dir, defaults) {
		o.Paths[unnamed[i]] = filepath.Join(dir, name)
	}
	for _, f := range o.Formats {
		abs, err := filepath.Abs(o.Paths[f])
		if err != nil {
			return plan, err
		}
		plan.Files = append(plan.Files, abs)
		plan.Built = plan.Built || f.Built()
	}
	return plan, nil
}

// exportBuilt is quarry export --format xlsx|pdf: the report built from
// the record in a fresh sandbox, into the session folder, a file, or
// standard output (-o -, not a terminal).
func (a *app) exportBuilt(c *cobra.Command, rec *session.Record, f export.Format, out string) error {
	toStdout := out == "-"
	if toStdout {
		if o, ok := a.stdout.(*os.File); ok && term.IsTerminal(o.Fd()) {
			return usagef(c, "-o - would print the %s file on the terminal: redirect it (> report.%s) or name a file with -o", f, f)
		}
		dir, err := os.MkdirTemp("", "quarry-export-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		out = filepath.Join(dir, export.DefaultName(f))
	}
	cfg, err := config.Load(config.Overrides{})
	if err != nil {
		return inputError{err}
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := export.ReportOptions{Formats: []export.Format{f}}
	if out != "" {
		o.Paths = map[export.Format]string{f: out}
	}
	// The builder's sandbox starts now, while the report's content is laid
	// out on the host.
	b, stopAhead := session.Builder{Config: cfg, Progress: a.stderr}.Ahead(rec.Dir, export.Warmup())
	defer stopAhead()
	files, err := export.WriteReport(ctx, rec, b, o)
	if ctx.Err() != nil {
		return interrupted{"interrupted"}
	}
	if err != nil {
		return fmt.Errorf("%s", render.Sanitize(err.Error()))
	}
	if toStdout {
		b, err := os.Open(files[0])
		if err != nil {
			return err
		}
		defer b.Close()
		_, err = io.Copy(a.stdout, b)
		return err
	}
	for _, p := range files {
		fmt.Fprintln(a.stdout, p)
	}
	return nil
}

// rerunReport writes a rerun's variance report (--report) from its new
// record, the cells' results on the new files; nothing without formats.
func rerunReport(ctx context.Context, formats, dir string, cfg config.Config, notes io.Writer) ([]string, error) {
	if formats == "" {
		return nil, nil
	}
	fs, err := parseReport(formats)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(notes, "quarry: writing the report")
	files, err := writeReport(ctx, dir, session.Builder{Config: cfg, Progress: notes}, export.ReportOptions{Formats: fs})
	if err != nil {
		return files, fmt.Errorf("the report could not be written: %s", render.Sanitize(err.Error()))
	}
	fmt.Fprintln(notes, "quarry: report written: "+render.SanitizeLine(strings.Join(files, ", ")))
	return files, nil
}
