package cli

import (
	"bytes"
	"strings"
	"testing"
)

// runQuarry runs quarry in process with its own session index.
func runQuarry(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(Build{}, strings.NewReader(""), &out, &errb)
	a.chat, a.headless = a.runChat, a.runHeadless
	return a.execute(args), out.String(), errb.String()
}

// The commands on saved sessions: an empty index, then each mistake named
// with exit 2 (the Docker-backed runs are in headless's end-to-end tests).
func TestSessionCommandsWithoutSessions(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if code, out, errs := runQuarry(t, "sessions"); code != 0 || out != "" || !strings.Contains(errs, "no saved sessions yet") {
		t.Errorf("sessions: %d %q %q", code, out, errs)
	}
	if code, out, _ := runQuarry(t, "sessions", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("sessions --json: %d %q", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "rm"}, "name the sessions to delete"},
		{[]string{"sessions", "rm", "../x"}, `"../x" is not a session id`},
		{[]string{"sessions", "rm", "20200101-000000-000000"}, `no such session: "20200101-000000-000000"`},
		{[]string{"sessions", "ls"}, "ls"},
		{[]string{"export"}, "name one session"},
		{[]string{"export", "latest"}, "no such session yet"},
		{[]string{"export", "latest", "--format", "docx"}, "--format docx: use ipynb, md, html, xlsx or pdf"},
		{[]string{"export", "latest", "--format", "pdf", "-o", "r.xlsx"}, "--format pdf does not match -o r.xlsx"},
		{[]string{"export", "latest", "--format", "md", "-o", "r.html"}, "--format md does not match -o r.html"},
		{[]string{"rerun"}, "name what to rerun"},
		{[]string{"rerun", "latest"}, "no such session yet"},
		{[]string{"-p", "x", "--resume"}, "no such session yet"},
	} {
		code, _, errs := runQuarry(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// On a terminal the session table cuts its names to fit, or, too narrow
// for any table, becomes a block per session; piped it stays whole.
func TestSessionTableFitsTheTerminal(t *testing.T) {
	rows := func() [][]string {
		return [][]string{{"ID", "STARTED", "CELLS", "MODEL", "FILES", "TITLE"},
			{"20261203-180450-bc9bcf", "2026-12-03 18:04", "2", "scripted-demo", "budget_q2.csv, budget_q1.csv", "Variance report: budget Q2 against Q1 by department"}}
	}
	r := rows()
	if !fitColumns(r, 0, 4, 5) || r[1][5] != rows()[1][5] {
		t.Errorf("piped, the table changed: %q", r[1])
	}
	r = rows()
	if !fitColumns(r, 120, 4, 5) {
		t.Fatal("120 columns: no table")
	}
	width := -2
	for c := range r[0] {
		w := 0
		for _, row := range r {
			w = max(w, len([]rune(row[c])))
		}
		width += w + 2
	}
	if width >= 120 || !strings.HasSuffix(r[1][5], "…") {
		t.Errorf("120 columns: %d wide, %q", width, r[1])
	}
	if fitColumns(rows(), 80, 4, 5) {
		t.Error("80 columns: a table that cannot fit")
	}
}
