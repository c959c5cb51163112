package export

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/session"
)

// chromium runs Debian's Chromium headless on a local page. Besides the
// flags that stop its own background traffic, every host name resolves to
// nothing and every request goes to a proxy on a closed loopback port: no
// request of the browser, the page's or its own, can leave the machine.
// The net log records each one it tried.
func chromium(t *testing.T, bin, page string, args ...string) (netlog, stdout []byte) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "net.json")
	flags := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--no-default-browser-check", "--disable-default-apps", "--disable-extensions",
		"--disable-features=NetworkTimeServiceQuerying", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:1",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--log-net-log=" + log,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(flags, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v\n%s", err, errb.String())
	}
	return b, out.Bytes()
}

// pageRequests are the URLs the page itself asked for (the top frame's
// site is the file), other than the page: Chromium's own requests belong
// to no page.
func pageRequests(t *testing.T, netlog []byte, page string) []string {
	t.Helper()
	var nl struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL string `json:"url"`
				NIK string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(netlog, &nl); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start := nl.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	var out []string
	for _, e := range nl.Events {
		if e.Type == start && strings.HasPrefix(e.Params.NIK, "file://") && e.Params.URL != "file://"+page {
			out = append(out, e.Params.URL)
		}
	}
	return out
}

// The exported page opens offline in a real browser: it shows the numbers
// and the figure, runs no script and makes no request. A page that does
// load an image shows up in the same check, so the check can fail.
func TestHTMLReportInChromium(t *testing.T) {
	bin := hosttest.Tool(t, "chromium")
	rec := loadRecord(t, writeRecord(t, 1, 3))
	dir := t.TempDir()
	hits, dom := viewReport(t, bin, rec, dir)
	if hits < 240*120/2 {
		t.Errorf("the figure is not on the screenshot (%d pixels of its colour)", hits)
	}
	for _, want := range []string{"<td class=\"num\">90000</td>", "TOTAL 270001", "<strong>12.5%</strong>", "&lt;script&gt;alert"} {
		if !bytes.Contains(dom, []byte(want)) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if bytes.Contains(dom, []byte("<script")) {
		t.Error("the rendered page has a script element")
	}

	control := filepath.Join(dir, "control.html")
	os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/control.png"></body></html>`), 0o644)
	netlog, _ := chromium(t, bin, control, "--screenshot="+filepath.Join(dir, "control.png"))
	if reqs := pageRequests(t, netlog, control); len(reqs) != 1 || reqs[0] != "http://127.0.0.1:9/control.png" {
		t.Errorf("the control page's image request was not seen: %q", reqs)
	}
}

// viewReport exports rec as HTML into dir and opens it in Chromium: it
// fails the test on any request the page makes, and returns the pixels of
// the figures' colour on a screenshot and the DOM as rendered.
func viewReport(t *testing.T, bin string, rec *session.Record, dir string) (int, []byte) {
	t.Helper()
	page := filepath.Join(dir, "report.html")
	if _, err := Write(rec, HTML, page); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	netlog, _ := chromium(t, bin, page, "--window-size=1200,3000", "--screenshot="+shot)
	if reqs := pageRequests(t, netlog, page); len(reqs) != 0 {
		t.Errorf("the report made requests: %q", reqs)
	}
	_, dom := chromium(t, bin, page, "--dump-dom")
	return colourPixels(t, shot), dom
}

// colourPixels counts the pixels of a screenshot in the test figures'
// colour.
func colourPixels(t *testing.T, shot string) int {
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
			if near(r, figureColour.R) && near(g, figureColour.G) && near(bl, figureColour.B) {
				hits++
			}
		}
	}
	return hits
}

func near(v uint32, want uint8) bool {
	d := int(v>>8) - int(want)
	return d > -6 && d < 6
}
