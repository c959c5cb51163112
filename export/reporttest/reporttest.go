// Package reporttest reads the reports quarry writes with the programs
// their readers use, for the tests of export and e2e: a workbook with
// openpyxl (readback.py) and LibreOffice, a PDF with poppler's pdftotext,
// pdfinfo and pdftoppm. The programs are rows of scripts/host.tsv.
package reporttest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
)

//go:embed readback.py
var readback string

// Workbook is a workbook as openpyxl reads it on the host (readback.py):
// each sheet's freeze, filter, pictures, column widths, its first rows cell
// by cell, and
// counts over all its cells.
type Workbook struct {
	Sheets []string
	Detail map[string]struct {
		Freeze      string
		Filter      string
		Images      int
		Rows        int
		Formulas    int
		FormulaLike int `json:"formula_like"`
		Quoted      int
		Control     int
		Longest     int
		Widths      map[string]float64 // by column letter
		First       [][]Cell
	}
}

type Cell struct {
	At    string
	V     any
	T     string
	Fmt   string
	Fill  string
	Bold  bool
	Quote bool
}

func ReadWorkbook(t testing.TB, path string, first int) Workbook {
	t.Helper()
	py := hosttest.Python(t, "openpyxl")
	cmd := exec.Command(py, "-c", readback, path, strconv.Itoa(first))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("openpyxl could not read %s: %v\n%s", path, err, stderr.String())
	}
	var rb Workbook
	if err := json.Unmarshal(b, &rb); err != nil {
		t.Fatal(err)
	}
	return rb
}

// CellAt finds a cell of a sheet's first rows by its coordinate.
func (rb Workbook) CellAt(sheet, at string) (Cell, bool) {
	for _, row := range rb.Detail[sheet].First {
		for _, c := range row {
			if c.At == at {
				return c, true
			}
		}
	}
	return Cell{}, false
}

// Texts are every string of a sheet's first rows.
func (rb Workbook) Texts(sheet string) []string {
	var out []string
	for _, row := range rb.Detail[sheet].First {
		for _, c := range row {
			if s, ok := c.V.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// LibreOffice converts a file with Debian's LibreOffice, headless, in a
// profile of its own; it returns the folder of the files it wrote.
func LibreOffice(t testing.TB, path, to string) string {
	t.Helper()
	bin := hosttest.Tool(t, "soffice")
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-env:UserInstallation=file://"+filepath.Join(t.TempDir(), "lo"), "--headless",
		"--norestore", "--convert-to", to, "--outdir", out, path)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("LibreOffice: %v\n%s", err, b)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) == 0 {
		t.Fatalf("LibreOffice wrote nothing converting %s to %s:\n%s", path, to, b)
	}
	return out
}

// PDFText is the PDF's text as poppler's pdftotext reads it, in layout.
func PDFText(t testing.TB, path string) string {
	t.Helper()
	b, err := exec.Command(hosttest.Tool(t, "pdftotext"), "-layout", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext %s: %v\n%s", path, err, b)
	}
	return string(b)
}

// RenderPages renders every page with pdftoppm and returns how many it
// drew and how many pdfinfo says there are.
func RenderPages(t testing.TB, path string) (drawn, pages int) {
	t.Helper()
	pages, _ = strconv.Atoi(pdfInfo(t, path)["Pages"])
	dir := t.TempDir()
	if b, err := exec.Command(hosttest.Tool(t, "pdftoppm"), "-r", "30", "-png", path, filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm %s: %v\n%s", path, err, b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if st, err := e.Info(); err == nil && st.Size() > 0 && strings.HasSuffix(e.Name(), ".png") {
			drawn++
		}
	}
	return drawn, pages
}

// pdfInfo is what poppler's pdfinfo says of the PDF, by field.
func pdfInfo(t testing.TB, path string) map[string]string {
	t.Helper()
	info, err := exec.Command(hosttest.Tool(t, "pdfinfo"), path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo %s: %v\n%s", path, err, info)
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(info), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// HostileName is the i-th of the names a data file could carry against
// whoever opens its report: formulas (a DDE command, a link among them),
// control characters and a terminal escape, a label of 5,000 characters
// and more.
func HostileName(i int) string {
	switch i % 6 {
	case 0:
		return fmt.Sprintf("=cmd|' /C calc'!A%d", i)
	case 1:
		return fmt.Sprintf("+SUM(1,%d)", i)
	case 2:
		return fmt.Sprintf("-%d+1", i)
	case 3:
		return fmt.Sprintf("@HYPERLINK(\"http://127.0.0.1:9/%d\")", i)
	case 4:
		return fmt.Sprintf("\t=1+%d\x07\x1b[31mred\x0b\r", i)
	}
	return fmt.Sprintf("%d %s", i, strings.Repeat("long label ", 455))
}

// PageSize is pdfinfo's "Page size" of the PDF's first page, in points:
// "595.276 x 841.89 pts (A4)".
func PageSize(t testing.TB, path string) string {
	t.Helper()
	return pdfInfo(t, path)["Page size"]
}
