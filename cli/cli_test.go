package cli

import (
	"strings"
	"testing"
)

// Asked-for help goes to stdout (quarry --help | less) and is complete; a
// mistake gets one short message on stderr and exit 2, never a run.
// None of these cases reaches Docker or a model.
func TestHelpAndBadArguments(t *testing.T) {
	isolateConfig(t)
	cases := []struct {
		args    []string
		code    int
		stdout  []string // each must appear
		stderr  []string
		maxErrs int // most stderr lines; 0 means no limit
	}{
		{args: []string{"--help"}, code: exitOK, stdout: []string{
			"quarry sandbox build|status|ref", "quarry config init", "quarry version",
			"quarry -p - ", "-p, --prompt", "--output-dir", "--json", "Exit status", "130"}},
		{args: []string{"help"}, code: exitOK, stdout: []string{"quarry -p PROMPT"}},
		{args: []string{"--bogus"}, code: exitUsage, stderr: []string{"-bogus", "quarry --help"}, maxErrs: 2},
		{args: []string{"-p"}, code: exitUsage, stderr: []string{"needs an argument", "quarry --help"}, maxErrs: 2},
		{args: []string{"-p", " "}, code: exitUsage, stderr: []string{"prompt is empty"}},
		{args: []string{"version", "extra"}, code: exitUsage, stderr: []string{`"extra"`}},
		{args: []string{"sandbox", "--help"}, code: exitOK, stdout: []string{"quarry sandbox build"}},
		{args: []string{"sandbox", "build", "--help"}, code: exitOK, stdout: []string{"--via", "--force"}},
		{args: []string{"sandbox", "status", "--help"}, code: exitOK, stdout: []string{"quarry sandbox status"}},
		{args: []string{"sandbox", "status", "extra"}, code: exitUsage, stderr: []string{`"extra"`}},
		{args: []string{"sandbox", "ref", "extra"}, code: exitUsage, stderr: []string{`"extra"`}},
		{args: []string{"sandbox", "build", "extra"}, code: exitUsage, stderr: []string{`"extra"`}},
		{args: []string{"sandbox", "build", "--bogus"}, code: exitUsage, stderr: []string{"-bogus"}, maxErrs: 2},
		{args: []string{"config", "--help"}, code: exitOK, stdout: []string{"QUARRY_MEMORY", "--tool-mode", "quarry config init"}},
		{args: []string{"config", "--bogus"}, code: exitUsage, stderr: []string{"-bogus", "quarry config --help"}, maxErrs: 2},
		{args: []string{"config", "bogus"}, code: exitUsage, stderr: []string{`"bogus"`}, maxErrs: 2},
		{args: []string{"doctor", "--help"}, code: exitOK, stdout: []string{"quarry doctor", "--model"}},
		{args: []string{"doctor", "extra"}, code: exitUsage, stderr: []string{`"extra"`}},
		{args: []string{"doctor", "--bogus"}, code: exitUsage, stderr: []string{"-bogus", "quarry doctor --help"}, maxErrs: 2},
	}
	for _, c := range cases {
		code, stdout, stderr := runCmd(t, c.args...)
		bad := code != c.code
		for _, s := range c.stdout {
			bad = bad || !strings.Contains(stdout, s)
		}
		for _, s := range c.stderr {
			bad = bad || !strings.Contains(stderr, s)
		}
		if n := strings.Count(stderr, "\n"); c.maxErrs > 0 && n > c.maxErrs {
			bad = true
		}
		if bad {
			t.Errorf("quarry %q: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", c.args, code, c.code, stdout, stderr)
		}
	}
}

// The settings table keeps one row per setting: a long help text must not
// widen the columns of every row (it pushed --flag 190 columns right).
func TestConfigHelpTableIsNarrow(t *testing.T) {
	isolateConfig(t)
	_, stdout, stderr := runCmd(t, "config", "--help")
	for _, line := range strings.Split(stdout+stderr, "\n") {
		if strings.Contains(line, "QUARRY_MODEL") && len(line) > 100 {
			t.Errorf("row is %d columns wide: %q", len(line), line)
		}
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing spaces: %q", line)
		}
	}
}

// After "--" every argument is a file, even one that looks like a flag.
func TestDoubleDashEndsFlags(t *testing.T) {
	f, err := parseFlags(t, "-p", "x", "a.csv", "--", "-b.csv", "--json")
	if err != nil || f.jsonOut || strings.Join(f.files, " ") != "a.csv -b.csv --json" {
		t.Errorf("files %q, json %v, err %v", f.files, f.jsonOut, err)
	}
}
