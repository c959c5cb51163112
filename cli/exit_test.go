package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The command line's contract with scripts: which arguments reach which
// mode, and the exit status of each outcome. None of these cases reaches
// Docker or a model.
func TestExitCodesAndPromptFlags(t *testing.T) {
	isolateConfig(t)
	cases := []struct {
		args     []string
		code     int
		headless bool // reached the headless mode
		prompt   string
		json     bool
		files    string
	}{
		{args: []string{"-p", "why?", "q1.csv", "q2.csv"}, code: exitOK, headless: true, prompt: "why?", files: "q1.csv q2.csv"},
		{args: []string{"--prompt", "why?", "--json", "q1.csv"}, code: exitOK, headless: true, prompt: "why?", json: true, files: "q1.csv"},
		{args: []string{"q1.csv", "-p", "-", "--json", "--quiet"}, code: exitOK, headless: true, prompt: "-", json: true, files: "q1.csv"},
		{args: []string{"q1.csv", "--model", "x", "-p", "x"}, code: exitOK, headless: true, prompt: "x", files: "q1.csv"},
		{args: []string{"--prompt=", "q1.csv"}, code: exitOK, headless: true, prompt: "", files: "q1.csv"},
		{args: []string{"q1.csv"}, code: exitOK, files: "q1.csv"},
		{args: []string{"--", "-p", "x"}, code: exitOK, files: "-p x"},
		{args: []string{"--json", "q1.csv"}, code: exitUsage},
		{args: []string{"--quiet"}, code: exitUsage},
		{args: []string{"--verbose", "q1.csv"}, code: exitUsage},
		{args: []string{"-p", "x", "--quiet", "--verbose"}, code: exitUsage},
		{args: []string{"-p", "x", "--verbose", "--share", "schema"}, code: exitOK, headless: true, prompt: "x"},
		{args: []string{"-p", "x", "--confirm"}, code: exitUsage},
		{args: []string{"-p", "x", "--timeout", "1ms"}, code: exitUsage},
		{args: []string{"-p", "x", "--max-steps", "-1"}, code: exitUsage},
		{args: []string{"-p"}, code: exitUsage},
		{args: []string{"--nope"}, code: exitUsage},
		{args: []string{"--help"}, code: exitOK},
		{args: []string{"help"}, code: exitOK},
		{args: []string{"--version"}, code: exitOK},
		{args: []string{"version"}, code: exitOK},
	}
	for _, c := range cases {
		var mode string
		var got *rootFlags
		var out, errb bytes.Buffer
		a := newApp(Build{Version: "v1", Commit: "c", Date: "d"}, strings.NewReader(""), &out, &errb)
		a.chat = func(_ context.Context, f *rootFlags) error { mode, got = "chat", f; return nil }
		a.headless = func(_ context.Context, f *rootFlags) error { mode, got = "headless", f; return nil }
		code := a.execute(c.args)
		if code != c.code {
			t.Errorf("quarry %q: exit %d, want %d\nstderr: %s", c.args, code, c.code, errb.String())
			continue
		}
		if code != exitOK || got == nil {
			if code == exitUsage && (strings.Count(errb.String(), "\n") > 2 || out.Len() != 0) {
				t.Errorf("quarry %q: a mistake should be one line and a hint on stderr:\nstdout %q\nstderr %q", c.args, out.String(), errb.String())
			}
			continue
		}
		if (mode == "headless") != c.headless || got.prompt != c.prompt || got.jsonOut != c.json || strings.Join(got.files, " ") != c.files {
			t.Errorf("quarry %q: mode %s, prompt %q, json %v, files %q", c.args, mode, got.prompt, got.jsonOut, got.files)
		}
	}

	// The statuses of outcomes, whatever the command.
	for err, want := range map[error]int{
		nil:                                exitOK,
		usageError{cmd: "quarry"}:          exitUsage,
		inputError{context.Canceled}:       exitInterrupted,
		interrupted{"interrupted"}:         exitInterrupted,
		silent{code: exitFailed}:           exitFailed,
		runError{context.DeadlineExceeded}: exitFailed,
	} {
		if got := exitCode(err); got != want {
			t.Errorf("exitCode(%#v) = %d, want %d", err, got, want)
		}
	}
}

// A flag with an optional value (NoOptDefVal, as --resume [ID] will be)
// must not take a file name after it for its value.
func TestOptionalValueFlagKeepsFiles(t *testing.T) {
	var resume string
	var files []string
	var out, errb bytes.Buffer
	a := newApp(Build{}, strings.NewReader(""), &out, &errb)
	a.chat = func(_ context.Context, f *rootFlags) error { resume, files = f.resume, f.files; return nil }
	for _, c := range []struct {
		args         []string
		resume, rest string
	}{
		{[]string{"--resume", "q1.csv", "q2.csv"}, "latest", "q1.csv q2.csv"},
		{[]string{"--resume=20260101-120000-abc123", "q1.csv"}, "20260101-120000-abc123", "q1.csv"},
		// --resume ID with a space: an id-shaped first argument that is no file is the id.
		{[]string{"--resume", "20260101-120000-abc123", "q1.csv"}, "20260101-120000-abc123", "q1.csv"},
		{[]string{"q1.csv"}, "", "q1.csv"},
	} {
		root := a.rootCommand()
		root.SetArgs(c.args)
		root.SetOut(&out)
		root.SetErr(&errb)
		if err := root.Execute(); err != nil || resume != c.resume || strings.Join(files, " ") != c.rest {
			t.Errorf("%q: err %v, resume %q, files %q", c.args, err, resume, files)
		}
	}
}
