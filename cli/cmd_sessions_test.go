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
		{[]string{"export", "latest", "--format", "pdf"}, "--format pdf: use ipynb, md or html"},
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
