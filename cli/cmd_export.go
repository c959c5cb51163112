package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/export"
	"github.com/quarry-cli/quarry/session"
)

// exportCmd is `quarry export ID --format ipynb|md|html [-o FILE]`.
func (a *app) exportCmd() *cobra.Command {
	var format, out string
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a session as a notebook (ipynb), a Markdown report (md), one HTML page (html), a workbook (xlsx) or a PDF",
		Long: `Write a saved session as a Jupyter notebook, a Markdown report, a
self-contained HTML page, or the variance report as a formatted workbook
(xlsx) or a PDF. ID is a session id (or its unique start, or latest, or a
session folder); quarry sessions lists them.

Without -o the file goes into the session folder (analysis.ipynb,
report.md, report.html, report.xlsx, report.pdf; report-2.pdf and so on
when the name is taken, so no earlier export or report is replaced) and
its path is printed; -o - prints it instead. The format comes from --format, else from the
extension of -o, else md. The workbook and the PDF are built from the
session's record in a fresh sandbox of their own (the engine must be
running; no model is asked); the PDF is A4, or Letter where the locale
(LC_PAPER, LANG) is the US's or Canada's.

The notebook's first cell sets DATA_DIR and OUTPUT_DIR (this folder by
default): the code's /data/... and /output/... paths use them, so it runs
in Jupyter beside the data. A Markdown report written outside the session
folder gets its figures in a folder <name>_files beside it. The HTML page
embeds its figures, runs no script and loads nothing.`,
		Example: `quarry export 20261129-173235-3761b5 --format html -o q2-report.html
quarry export latest --format ipynb
quarry export latest -o - | less
quarry export latest --format xlsx -o q2-variance.xlsx`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(c, "name one session: quarry export ID (quarry sessions lists them)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			f, err := exportFormat(format, out)
			if err != nil {
				return usagef(c, "%v", err)
			}
			rec, err := session.FindSession(session.DefaultIndex(), args[0])
			if err != nil {
				return inputError{err}
			}
			if out == "" { // into the session folder, replacing no earlier export or report
				out = filepath.Join(rec.Dir, session.FreeNames(rec.Dir, []string{export.DefaultName(f)})[0])
			}
			if f.Built() {
				return a.exportBuilt(c, rec, f, out)
			}
			if out == "-" {
				return export.Render(a.stdout, rec, f)
			}
			files, err := export.Write(rec, f, out)
			if err != nil {
				return err
			}
			for _, p := range files {
				fmt.Fprintln(a.stdout, p)
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "", "ipynb, md, html, xlsx or pdf (default: from -o's extension, else md)")
	c.Flags().StringVarP(&out, "output", "o", "", "the file to write; - for standard output (default: in the session folder)")
	return c
}

// exportFormat settles the format from --format and the output's name.
func exportFormat(format, out string) (export.Format, error) {
	byName, named := export.FormatOf(out)
	if format == "" {
		if named {
			return byName, nil
		}
		return export.Markdown, nil
	}
	f, err := export.ParseFormat(format)
	if err != nil {
		return "", fmt.Errorf("--format %s: use ipynb, md, html, xlsx or pdf", format)
	}
	if named && byName != f {
		return "", fmt.Errorf("--format %s does not match -o %s: choose one", format, out)
	}
	return f, nil
}
