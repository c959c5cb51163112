package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/demo"
)

// quarry demo takes the chat's or the headless launch with the demo's
// question, and refuses what does not fit it.
func TestDemoRoutesToTheFrontEnds(t *testing.T) {
	f, err := parseFlags(t, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if f.demo == nil || f.promptSet || len(f.files) != 0 {
		t.Errorf("quarry demo: %+v", f)
	}
	f, err = parseFlags(t, "demo", "-p", "--json", "--output-dir", "x")
	if err != nil {
		t.Fatal(err)
	}
	if f.demo == nil || !f.promptSet || f.prompt != demo.Question || !f.jsonOut || f.overrides.OutputDir != "x" {
		t.Errorf("quarry demo -p: %+v", f)
	}
	for _, args := range [][]string{{"demo", "--json"}, {"demo", "-p", "a prompt"}, {"demo", "--model", "m"}} {
		if code, _, stderr := runCmd(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
	// Without a terminal the chat points at the demo's headless mode.
	if code, _, stderr := runCmd(t, "demo"); code != exitUsage || !strings.Contains(stderr, "quarry demo -p") {
		t.Errorf("quarry demo piped: exit %d: %s", code, stderr)
	}
}

// With no model set up, the chat's refusal offers the demo, and config
// check says the same with exit 2; with a key it names the model.
func TestNoModelOffersTheDemo(t *testing.T) {
	isolateConfig(t)
	t.Setenv("QUARRY_OUTPUT_DIR", t.TempDir())
	code, _, stderr := runCmd(t, "-p", "x")
	if code != exitUsage || !strings.Contains(stderr, "no model is set up") || !strings.Contains(stderr, "quarry demo") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runCmd(t, "config", "check")
	if code != exitUsage || !strings.Contains(stderr, "quarry demo") {
		t.Errorf("config check without a model: exit %d: %s", code, stderr)
	}
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("QUARRY_MODEL", "gpt-test")
	code, out, stderr := runCmd(t, "config", "check")
	if code != exitOK || !strings.Contains(out, "model gpt-test at https://api.openai.com/v1") || strings.Contains(out+stderr, "DOCTORSECRET") {
		t.Errorf("config check with a key: exit %d: %s %s", code, out, stderr)
	}
}

// The demo reads no key and runs no key command: a failing api_key_cmd,
// which stops the chat, does not stop the demo's launch.
func TestDemoLaunchNeedsNoKey(t *testing.T) {
	path := isolateConfig(t)
	writeFile(t, path, "api_key_cmd = \"false\"\n")
	t.Setenv("OPENAI_API_KEY", testKey)
	f := &rootFlags{demo: &demoRun{script: &demo.Script{}}}
	f.overrides.OutputDir = filepath.Join(t.TempDir(), "out")
	var opts launchOptions
	f.demo.launchOptions(&opts)
	l, err := launch(t.Context(), f, opts)
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer l.sess.Close()
	if l.cfg.APIKey != "" || l.sess.Model() != demo.Model {
		t.Errorf("key %q, model %q", l.cfg.APIKey, l.sess.Model())
	}
	if got := f.demo.opened(l.sess); len(got) != len(demo.Names) || filepath.Dir(got[0]) != filepath.Join(f.overrides.OutputDir, demo.DataDir) {
		t.Errorf("demo files at %q", got)
	}
	if _, err := launch(t.Context(), &rootFlags{overrides: f.overrides}, launchOptions{}); err == nil || !strings.Contains(err.Error(), "api_key_cmd") {
		t.Errorf("the chat's launch with the failing key command: %v", err)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// /model in the demo names the script it keeps and the way on with a
// real model: the session to resume.
func TestDemoModelNote(t *testing.T) {
	n := demoModelNote("20261206-120000-abcdef")
	for _, want := range []string{demo.Model, "quarry --resume 20261206-120000-abcdef", "/quit", "quarry config init"} {
		if !strings.Contains(n, want) {
			t.Errorf("the note lacks %q: %s", want, n)
		}
	}
}
