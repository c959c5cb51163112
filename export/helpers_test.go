package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// figureColour fills the test figure, so a screenshot can find it.
var figureColour = color.RGBA{R: 201, G: 31, B: 122, A: 255}

func figureBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, figureColour)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Hostile text, as a model or the code in the sandbox could write it.
const (
	hostileQuestion = "Variance by region <script>alert('q')</script>"
	hostileAnswer   = "North grew **12.5%**.\n\n<img src=x onerror=alert(1)>\n\n![tracker](http://127.0.0.1:9/pixel.png)\n\n[click](javascript:alert(2))\n\n| region | change |\n|---|---|\n| North | 10,000 |\n"
)

// writeRecord writes a session folder with a record of turns built by
// cells(n): n cells per turn alternating tables, figures and failures.
func writeRecord(t testing.TB, turns, cellsPerTurn int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261129-173235-3761b5")
	os.MkdirAll(filepath.Join(dir, "figures"), 0o700)
	var lines [][]byte
	add := func(e session.Entry) {
		if e.Time.IsZero() {
			e.Time = time.Date(2026, 11, 29, 17, 32, 35, 0, time.UTC)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	add(session.Entry{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Model: "gpt-fake"})
	add(session.Entry{Kind: session.EntryInput, Input: &session.Input{Name: "q1.csv", Path: "/home/ana/q1.csv", Size: 122, SHA256: strings.Repeat("0123456789abcdef", 4),
		Profile: &kernel.Profile{Name: "q1.csv", Rows: 3, Columns: []kernel.Column{{Name: "region", Dtype: "object"}, {Name: "revenue", Dtype: "int64"}}}}})
	n := 0
	for q := 1; q <= turns; q++ {
		question := fmt.Sprintf("question %d", q)
		if q == 1 {
			question = hostileQuestion
		}
		add(session.Entry{Kind: session.EntryQuestion, Text: question})
		for c := 0; c < cellsPerTurn; c++ {
			n++
			res := kernel.Result{Stdout: fmt.Sprintf("TOTAL %d\x1b[31m red\x1b[0m\n", 270000+n), Duration: 120 * time.Millisecond}
			code := fmt.Sprintf("df = pd.read_csv('/data/q1.csv')\nv = df.groupby('region').revenue.sum()\nv.to_csv('/output/v%d.csv')\nv", n)
			switch n % 3 {
			case 1:
				res.Value = &kernel.Value{Repr: "region\nNorth    90000", Table: &kernel.Table{
					Columns: []string{"revenue", "note"}, Dtypes: []string{"int64", "object"}, IndexName: "region",
					Index: []string{"North", "South", "West"},
					Head:  [][]string{{"90000", "<b>bold</b>"}, {"80000", "a|b"}, {"100000", "ok"}}, Rows: 3, Cols: 2}}
				res.Files = []kernel.File{{Name: fmt.Sprintf("v%d.csv", n), Size: 40}}
			case 2:
				name := fmt.Sprintf("figures/cell%d-1.png", n)
				os.WriteFile(filepath.Join(dir, name), figureBytes(t, 240, 120), 0o600)
				res.Figures = []kernel.File{{Name: name, Size: 100, Width: 240, Height: 120}}
			case 0:
				res.Stdout = ""
				res.Error = &kernel.Error{Kind: kernel.ErrException, Type: "KeyError", Message: "'Nowhere'",
					Traceback: "  File \"<cell>\", line 1, in <module>\n    v['Nowhere']\nKeyError: 'Nowhere'"}
				code = "v['Nowhere']"
			}
			st := session.CellOK
			if res.Error != nil {
				st = session.CellFailed
			}
			add(session.Entry{Kind: session.EntryCell, Cell: &session.Cell{Num: n, Code: code, Status: st, Result: res}})
		}
		answer := fmt.Sprintf("Answer %d: total **%d**.", q, 270000+n)
		if q == 1 {
			answer = hostileAnswer
		}
		add(session.Entry{Kind: session.EntryAnswer, Text: answer})
	}
	if err := os.WriteFile(filepath.Join(dir, session.RecordName), append(bytes.Join(lines, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadRecord(t testing.TB, dir string) *session.Record {
	t.Helper()
	rec, err := session.LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// rawTag tells whether tag occurs in s unescaped: not after a backslash,
// Markdown's escape of the <.
func rawTag(s, tag string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], tag)
		if j < 0 {
			return false
		}
		if at := i + j; at == 0 || s[at-1] != '\\' {
			return true
		}
		i += j + 1
	}
}
