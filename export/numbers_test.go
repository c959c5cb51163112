package export

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

const checkedAnswer = "North has **90,000** and South 80,000; together 170,000, up 6.3%."

// writeCheckedRecord is a one-question session whose answer's numbers were
// checked against its cell as the session checks them (check false: an
// answer from before the check, or verify = off).
func writeCheckedRecord(t *testing.T, check bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261201-101500-abcdef")
	os.MkdirAll(dir, 0o700)
	res := kernel.Result{Duration: 80 * time.Millisecond, Value: &kernel.Value{Repr: "revenue", Table: &kernel.Table{
		Columns: []string{"revenue"}, Dtypes: []string{"int64"}, IndexName: "region", Index: []string{"North", "South"},
		Head: [][]string{{"90000"}, {"80000"}}, Rows: 2, Cols: 1}}}
	var nums []ground.Claim
	if check {
		nums = ground.Check(ground.Input{Answer: checkedAnswer, Question: "revenue by region", Sources: ground.FromResult(1, res)})
	}
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	var b bytes.Buffer
	for _, e := range []session.Entry{
		{Kind: session.EntrySession, V: session.RecordVersion, ID: filepath.Base(dir), Model: "gpt-fake", Time: at},
		{Kind: session.EntryQuestion, Text: "revenue by region", Time: at},
		{Kind: session.EntryCell, Cell: &session.Cell{Num: 1, Code: "df.groupby('region').revenue.sum()", Status: session.CellOK, Result: res}, Time: at},
		{Kind: session.EntryAnswer, Text: checkedAnswer, Numbers: nums, Time: at},
	} {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, session.RecordName), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func exported(t *testing.T, rec *session.Record, f Format) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Write(rec, f, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportsMarkUnverifiedNumbers(t *testing.T) {
	rec := loadRecord(t, writeCheckedRecord(t, true))
	page := exported(t, rec, HTML)
	for _, want := range []string{
		`<strong><span class="number grounded" title="grounded: cell 1 · table row North, column revenue: 90000">90,000</span></strong>`,
		`<span class="number unverified" title="unverified: in no cell&#39;s output"><span class="unverified-mark">⟦</span>170,000<span class="unverified-mark">⟧</span></span>`,
		`<span class="number unverified" title="unverified: in no cell&#39;s output"><span class="unverified-mark">⟦</span>6.3%<span`,
		`<p class="unverified-list">⟦⟧ Unverified, in no cell's output: 170,000, 6.3%</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %s", want)
		}
	}
	md := exported(t, rec, Markdown)
	for _, want := range []string{"together ⟦170,000⟧[^q1-1], up ⟦6.3%⟧[^q1-2].", "[^q1-1]: ⟦170,000⟧ is unverified: it is in no cell's output.", "[^q1-2]: ⟦6.3%⟧ is unverified"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "90,000**[^") || strings.Contains(md, "90,000[^") {
		t.Errorf("a grounded number has a footnote:\n%s", md)
	}
	nb := exported(t, rec, Notebook)
	if !strings.Contains(nb, `⟦170,000⟧[^q1-1]`) || !strings.Contains(nb, `[^q1-1]: ⟦170,000⟧ is unverified`) {
		t.Errorf("the notebook's answer has no footnote:\n%s", nb)
	}
	// Without numbers in the record (verify off, or an older record) the
	// answer is exported as it was.
	plain := loadRecord(t, writeCheckedRecord(t, false))
	if p := exported(t, plain, HTML); strings.Contains(p, "unverified") && !strings.Contains(p, ".number.unverified") || strings.Contains(p, `class="number`) {
		t.Errorf("an unchecked answer is marked")
	}
	if strings.Contains(exported(t, plain, Markdown), "[^q1") {
		t.Errorf("an unchecked answer has footnotes")
	}
}

// In a real browser the marks are drawn: the dotted underline and the
// brackets in their colour are on the screenshot, and the spans with their titles in
// the DOM; the same page without checked numbers has none of that colour.
func TestHTMLMarksInChromium(t *testing.T) {
	bin := hosttest.Tool(t, "chromium")
	shot := func(check bool) (int, []byte) {
		dir := t.TempDir()
		page := filepath.Join(dir, "report.html")
		if _, err := Write(loadRecord(t, writeCheckedRecord(t, check)), HTML, page); err != nil {
			t.Fatal(err)
		}
		png := filepath.Join(dir, "shot.png")
		netlog, _ := chromium(t, bin, page, "--window-size=1000,1200", "--screenshot="+png)
		if reqs := pageRequests(t, netlog, page); len(reqs) != 0 {
			t.Errorf("the report made requests: %q", reqs)
		}
		_, dom := chromium(t, bin, page, "--dump-dom")
		return markPixels(t, png), dom
	}
	hits, dom := shot(true)
	if hits < 40 {
		t.Errorf("the marks are not on the screenshot (%d pixels of their colour)", hits)
	}
	for _, want := range []string{`class="number unverified" title="unverified: in no cell's output"><span class="unverified-mark">⟦</span>170,000<span class="unverified-mark">⟧</span></span>`, `title="grounded: cell 1 · table row North, column revenue: 90000"`} {
		if !bytes.Contains(dom, []byte(want)) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if none, _ := shot(false); none != 0 {
		t.Errorf("a page without unverified numbers has %d pixels of the marks' colour: the check proves nothing", none)
	}
}

// markPixels counts the pixels in the marks' colour (#d9480f).
func markPixels(t *testing.T, shot string) int {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, 0xd9) && near(g, 0x48) && near(bl, 0x0f) {
				hits++
			}
		}
	}
	return hits
}
