package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/demo/demotest"
	"github.com/quarry-cli/quarry/export/reporttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// quarry demo -p with no key, no model server and no Ollama: exit 0, the
// variance report on standard output, computed in the sandbox from the
// files the demo wrote into its session folder, then the workbook and the
// PDF written; nothing contacted.
func TestDemoHeadless(t *testing.T) {
	sandboxtest.Engine(t)
	watch, connections := demotest.Watch(t)
	out := filepath.Join(t.TempDir(), "demo")
	home := t.TempDir()
	r := newRun(t, "", "demo", "-p", "--output-dir", out).withoutModel().inHome(home)
	r.env = append(r.env, demotest.NoNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("exit %d, want 0; stdout:\n%s", code, r.stdout.String())
	}
	stdout := r.stdout.String()
	for _, want := range append(append(demotest.Rows(t, filepath.Join(out, "data")), demotest.Drivers(t, filepath.Join(out, "data"))...),
		"**Material lines**", "scripted", "OPENAI_API_KEY", "quarry config init",
		filepath.Join(out, "variance.csv"), filepath.Join(out, "figures", "cell2-1.png")) {
		if !strings.Contains(stdout, want) {
			t.Errorf("the answer lacks %q:\n%s", want, stdout)
		}
	}
	// It ends with the report written: the workbook's Summary holds the
	// numbers of the shipped files, the PDF's text the same.
	book, pdf := filepath.Join(out, "report.xlsx"), filepath.Join(out, "report.pdf")
	if !strings.Contains(r.stderr.String(), "report written: "+book+", "+pdf) {
		t.Errorf("stderr does not name the report:\n%s", r.stderr.String())
	}
	requireDemoReport(t, out)
	if !strings.Contains(r.stderr.String(), "demo: scripted model, real sandbox") {
		t.Errorf("stderr does not say it is a demo:\n%s", r.stderr.String())
	}
	if n := connections(); n != 0 {
		t.Errorf("the demo made %d connections to a model server, proxy or Ollama", n)
	}
	rec, err := os.ReadFile(filepath.Join(out, "session.jsonl"))
	if err != nil || !strings.Contains(string(rec), `"scripted-demo"`) {
		t.Errorf("the session record does not name the scripted model (%v):\n%.400s", err, rec)
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// Listed for what it is, and resumed with the configured model, not
	// the script: the demo's cells are replayed, so its variables answer.
	list := sessionsJSON(t, home)
	if len(list) != 1 || list[0].Model != "scripted-demo" || !strings.HasPrefix(list[0].Title, "Variance report: Q2 actuals") {
		t.Fatalf("quarry sessions --json = %+v", list)
	}
	srv := openaitest.New(t, openaitest.ToolCalls(`print("BY", v.set_index("line").variance.to_dict())`))
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		return openaitest.Text("From the demo: " + req.LastToolResult())
	})
	r = newRun(t, srv.URL, "-p", "and by line?", "--resume", list[0].ID).inHome(home)
	lines, _ := demotest.Variance(t, filepath.Join(out, "data"))
	if code := r.exec(3 * time.Minute); code != 0 || !strings.Contains(r.stdout.String(), fmt.Sprintf("'%s': %.1f", lines[0].Name, lines[0].Variance)) {
		t.Errorf("resuming the demo: exit %d:\n%s", code, r.stdout.String())
	}
	for _, req := range srv.ChatRequests() {
		if req.Chat.Model != "gpt-fake" {
			t.Errorf("the resumed demo asked model %q, want the configured gpt-fake", req.Chat.Model)
		}
	}
	requireNoContainers(t, r.cmd.Process.Pid)

	// --json: the same answer, its three cells and the figure.
	out2 := filepath.Join(t.TempDir(), "demo")
	r = newRun(t, "", "demo", "-p", "--json", "--output-dir", out2).withoutModel()
	r.env = append(r.env, demotest.NoNetworkEnv(watch)...)
	if code := r.exec(3 * time.Minute); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var doc struct {
		Answer     string
		Model      string
		Cells      []json.RawMessage
		Files      []string
		Report     []string
		Unverified int
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout.String())
	}
	if doc.Model != "scripted-demo" || len(doc.Cells) != 3 || !strings.Contains(doc.Answer, demotest.Rows(t, filepath.Join(out2, "data"))[0]) {
		t.Errorf("--json: model %q, %d cells, answer:\n%s", doc.Model, len(doc.Cells), doc.Answer)
	}
	if strings.Join(doc.Report, " ") != filepath.Join(out2, "report.xlsx")+" "+filepath.Join(out2, "report.pdf") || doc.Unverified != 0 {
		t.Errorf("--json: report %q, %d numbers unverified", doc.Report, doc.Unverified)
	}
}

// requireDemoReport checks the demo's workbook and PDF in out against the
// variance computed here from the files it shipped.
func requireDemoReport(t *testing.T, out string) {
	t.Helper()
	lines, profit := demotest.Variance(t, filepath.Join(out, "data"))
	wb := reporttest.ReadWorkbook(t, filepath.Join(out, "report.xlsx"), 40)
	if strings.Join(wb.Sheets, ",") != "Summary,Drivers,variance,Sources,Code" || wb.Detail["Summary"].Images != 1 {
		t.Errorf("the demo's workbook: sheets %v, %d pictures on the Summary", wb.Sheets, wb.Detail["Summary"].Images)
	}
	text := reporttest.PDFText(t, filepath.Join(out, "report.pdf"))
	for i, l := range append(lines, profit) {
		row := strconv.Itoa(5 + i)
		for col, want := range map[string]float64{"D": l.Actual, "E": l.Budget, "F": l.Variance} {
			if c, _ := wb.CellAt("Summary", col+row); c.V != want {
				t.Errorf("Summary %s%s (%s) = %v, want %v", col, row, l.Name, c.V, want)
			}
		}
		if name, _ := wb.CellAt("Summary", "B"+row); name.V != l.Name {
			t.Errorf("Summary B%s = %v, want %s", row, name.V, l.Name)
		}
		if !strings.Contains(text, l.Name) {
			t.Errorf("the PDF lacks the line %s", l.Name)
		}
	}
	// The follow-up's drivers: each member's part, as computed here from
	// the ledger, on the Drivers sheet and in the PDF.
	worst, drivers := demotest.Explained(t, filepath.Join(out, "data"))
	col := map[string]string{}
	for c := 'A'; c <= 'J'; c++ {
		if h, _ := wb.CellAt("Drivers", string(c)+"1"); h.V != nil {
			col[fmt.Sprint(h.V)] = string(c)
		}
	}
	for _, d := range drivers {
		found := false
		for row := 2; row < 40 && !found; row++ {
			at := func(name string) any { c, _ := wb.CellAt("Drivers", col[name]+strconv.Itoa(row)); return c.V }
			found = at("line") == worst.Account+" · "+worst.Name && at("dimension") == d.Dimension && at("member") == d.Member && at("variance") == d.Variance
		}
		if !found {
			t.Errorf("the Drivers sheet (columns %v) lacks %s's %s %s at %v", col, worst.Name, d.Dimension, d.Member, d.Variance)
		}
		if !strings.Contains(text, d.Member) {
			t.Errorf("the PDF lacks the driver %s", d.Member)
		}
	}
}
