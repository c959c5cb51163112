package cli

import (
	"strings"
	"testing"
)

// A typo of a command, a flag or a session id is told as that, with the
// nearest right name, not as a missing file.
func TestDidYouMean(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sesions"}, "sesions is no file and no command: did you mean quarry sessions?"},
		{[]string{"hlep"}, "hlep is no file and no command: did you mean quarry help?"},
		{[]string{"-p", "x", "exprot"}, "did you mean quarry export?"},
		{[]string{"--modle", "x"}, "unknown flag: --modle: did you mean --model?"},
		{[]string{"-p", "x", "--max-step=3"}, "did you mean --max-steps?"},
		{[]string{"sessions", "--jsn"}, "did you mean --json?"},
		{[]string{"export", "latest", "--fromat", "md"}, "did you mean --format?"},
		{[]string{"sandbox", "biuld"}, `unknown command "biuld": did you mean quarry sandbox build?`},
		{[]string{"completion", "bsh"}, "did you mean quarry completion bash"},
		// --resume ID with a space: a word that is no file is the id.
		{[]string{"-p", "x", "--resume", "nosuch"}, `no such session: "nosuch"`},
	} {
		code, _, errs := runQuarry(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("quarry %q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	// Nothing to suggest: the plain message.
	if code, _, errs := runQuarry(t, "-p", "x", "q9.csv"); code != exitUsage || strings.Contains(errs, "did you mean") || !strings.Contains(errs, "q9.csv: no such file") {
		t.Errorf("a missing file: exit %d, %q", code, errs)
	}
	if code, _, errs := runQuarry(t, "--zzzzzz"); code != exitUsage || strings.Contains(errs, "did you mean") {
		t.Errorf("a flag near nothing: exit %d, %q", code, errs)
	}
}
