package export

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// The report people pass on: a workbook and a PDF, built by quarry's own
// Python (reportpy/, openpyxl and reportlab) in a fresh sandbox that no
// model code ran in, from the record and the files the cells saved; the
// host checks what comes back (report_check.go) before it takes its place
// in the session folder. The HTML page (html.go) shows the same report.

// A Builder runs quarry's code on host files in a fresh sandbox: files are
// copied in under /data (name → host path), code runs as one cell, and
// what it writes to /output is harvested into out, a folder that does not
// exist yet. A cell that fails is the Result's Error, not an error.
type Builder interface {
	Build(ctx context.Context, files map[string]string, code, out string) (kernel.Result, error)
}

// ReportOptions say which reports to write, and where.
type ReportOptions struct {
	Formats []Format          // xlsx, pdf, html
	Dir     string            // the folder for each format's default name (the session folder when empty)
	Paths   map[Format]string // a file of its own for a format
	Paper   string            // A4 or Letter; empty: from the locale (Paper)
	Now     time.Time         // the report's date; zero: now
}

//go:embed reportpy/*.py
var reportPy embed.FS

// builderParts are the builder's files, in the order they are joined into
// one program.
var builderParts = []string{"report_text.py", "report_cells.py", "report_workbook.py", "report_pdf.py", "report_main.py"}

// builtMark starts the line the builder prints of what it wrote.
const builtMark = "quarry-report-built: "

func builderCode() string {
	return builderSource() + "build_report('/data/report.json', '/data', '/output')\n"
}

// builderSource is the builder's definitions, without the call.
func builderSource() string {
	var b strings.Builder
	for _, n := range builderParts {
		src, err := reportPy.ReadFile("reportpy/" + n)
		if err != nil {
			panic("export: embedded report builder missing: " + err.Error()) // a build defect
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// NoVariance is what a report of a session without a variance() table
// says of it.
const NoVariance = "No variance() table in this session: the report holds the commentary, the saved tables and the sources."

// HasVariance tells whether rec has a variance() table for the report.
func HasVariance(rec *session.Record) bool { return newDoc(rec).report().variance != nil }

// Built tells the formats only the builder writes.
func (f Format) Built() bool { return f == Workbook || f == PDF }

// WriteReport writes rec's report in each format asked for and returns the
// files written. The workbook and the PDF are built by b; the HTML page
// here.
func WriteReport(ctx context.Context, rec *session.Record, b Builder, o ReportOptions) ([]string, error) {
	dir := o.Dir
	if dir == "" {
		dir = rec.Dir
	}
	target := func(f Format) (string, error) {
		p := o.Paths[f]
		if p == "" {
			p = filepath.Join(dir, DefaultName(f))
		}
		return filepath.Abs(p)
	}
	for _, f := range o.Formats { // before a sandbox is started for nothing
		if p := o.Paths[f]; p != "" {
			if err := folderExists(p); err != nil {
				return nil, err
			}
		}
	}
	var written []string
	var built []Format
	for _, f := range o.Formats {
		if f.Built() {
			built = append(built, f)
			continue
		}
		p, err := target(f)
		if err != nil {
			return written, fmt.Errorf("report: %w", err)
		}
		files, err := Write(rec, f, p)
		written = append(written, files...)
		if err != nil {
			return written, err
		}
	}
	if len(built) == 0 {
		return written, nil
	}
	if b == nil {
		return written, errors.New("report: no sandbox to build the workbook and the PDF in")
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	paper := o.Paper
	if paper == "" {
		paper = Paper(os.Getenv)
	}
	d := newDoc(rec)
	spec, files := d.spec(d.report(), built, paper, now)
	out, _, err := build(ctx, rec.Dir, b, spec, files)
	if out != "" {
		defer os.RemoveAll(filepath.Dir(out))
	}
	if err != nil {
		return written, err
	}
	for _, f := range built {
		p, err := target(f)
		if err != nil {
			return written, fmt.Errorf("report: %w", err)
		}
		src := filepath.Join(out, DefaultName(f))
		if err := checkBuilt(f, src); err != nil {
			return written, fmt.Errorf("report %s: the builder's file was refused: %w", DefaultName(f), err)
		}
		if err := place(src, p); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// built is what the builder says it wrote, and the seconds each format
// took in the sandbox.
type built struct {
	Files    []string           `json:"files"`
	Sheets   []string           `json:"sheets"`
	Seconds  map[string]float64 `json:"seconds"`
	Cleaning []string           `json:"cleaning"`
}

// build runs the builder on the spec in a folder of its own inside the
// session folder, and returns where the files it wrote are.
func build(ctx context.Context, sessionDir string, b Builder, spec *reportSpec, files map[string]string) (string, built, error) {
	var said built
	work, err := os.MkdirTemp(sessionDir, ".report-")
	if err != nil {
		return "", said, fmt.Errorf("report: %w", err)
	}
	out := filepath.Join(work, "out")
	specPath := filepath.Join(work, "report.json")
	data, err := json.Marshal(spec)
	if err == nil {
		err = os.WriteFile(specPath, data, 0o600)
	}
	if err != nil {
		return out, said, fmt.Errorf("report: %w", err)
	}
	in := map[string]string{"report.json": specPath}
	for k, v := range files {
		in[k] = v
	}
	res, err := b.Build(ctx, in, builderCode(), out)
	if err != nil {
		return out, said, fmt.Errorf("report: %w", err)
	}
	if res.Error != nil {
		msg := res.Error.Message
		if res.Error.Type != "" {
			msg = res.Error.Type + ": " + msg
		}
		if res.Error.Kind == kernel.ErrException && res.Error.Traceback != "" {
			msg += "\n" + strings.TrimSpace(res.Error.Traceback)
		}
		return out, said, fmt.Errorf("report: the builder failed: %s", clean(msg))
	}
	_, line, ok := strings.Cut(res.Stdout, builtMark)
	line, _, _ = strings.Cut(line, "\n")
	if !ok || json.Unmarshal([]byte(line), &said) != nil {
		return out, said, errors.New("report: the builder ended without saying what it wrote")
	}
	return out, said, nil
}

// place moves a checked file to its place: renamed when on the same file
// system, copied beside and renamed otherwise, so a reader never sees half.
func place(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		return fmt.Errorf("report %s: is a folder: name the file to write", dst)
	}
	if err := os.Rename(src, dst); err == nil {
		return os.Chmod(dst, 0o644)
	}
	return writeAtomic(dst, func(w io.Writer) error {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}

// Paper is the PDF's paper size from the locale, as C programs read it
// (LC_ALL, then LC_PAPER, then LANG): Letter in the territories that use
// it, A4 elsewhere.
func Paper(getenv func(string) string) string {
	loc := ""
	for _, k := range []string{"LC_ALL", "LC_PAPER", "LANG"} {
		if v := getenv(k); v != "" {
			loc = v
			break
		}
	}
	loc, _, _ = strings.Cut(loc, ".")
	loc, _, _ = strings.Cut(loc, "@")
	_, territory, _ := strings.Cut(loc, "_")
	if letterTerritories[strings.ToUpper(territory)] {
		return "Letter"
	}
	return "A4"
}

// letterTerritories use US Letter (glibc's LC_PAPER for their locales).
var letterTerritories = map[string]bool{"US": true, "CA": true, "MX": true, "PH": true, "CL": true, "CO": true,
	"CR": true, "GT": true, "NI": true, "PA": true, "PR": true, "SV": true, "VE": true, "DO": true}
