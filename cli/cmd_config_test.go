package cli

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testKey = "sk-test-DOCTORSECRET-0123456789"

// isolateConfig clears every quarry and OpenAI variable and points the
// config file and the Ollama probe at places the test owns.
func isolateConfig(t *testing.T) string {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "QUARRY_") || strings.HasPrefix(k, "OPENAI_") {
			t.Setenv(k, "")
		}
	}
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	closed := httptest.NewServer(nil)
	closed.Close()
	t.Setenv("QUARRY_OLLAMA_HOST", closed.URL) // nothing answers there
	return filepath.Join(dir, "quarry", "config.toml")
}

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(Build{Version: "test"}, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestConfigShowsSourcesOfFourLayers(t *testing.T) {
	path := isolateConfig(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("model = \"file-model\"\ntool_mode = \"markdown\"\ntimeout = \"30s\"\n"), 0o600)
	t.Setenv("QUARRY_TOOL_MODE", "native")
	t.Setenv("OPENAI_API_KEY", testKey)
	code, out, stderr := runCmd(t, "config", "--timeout", "45s")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"model              file-model", "file " + path + ":1",
		"tool_mode          native", "env QUARRY_TOOL_MODE",
		"timeout            45s", "flag --timeout",
		"theme              auto", "set (from env OPENAI_API_KEY)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+stderr, "DOCTORSECRET") || strings.Contains(out+stderr, "sk-test") {
		t.Fatalf("quarry config printed the key:\n%s", out)
	}
}

func TestConfigKeyFromCommandNeverPrinted(t *testing.T) {
	path := isolateConfig(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("api_key_cmd = \"echo "+testKey+"\"\n"), 0o600)
	code, out, stderr := runCmd(t, "config", "-v")
	if code != exitOK || !strings.Contains(out, "set (from api_key_cmd)") {
		t.Fatalf("exit %d:\n%s%s", code, out, stderr)
	}
	if strings.Contains(out+stderr, "DOCTORSECRET") {
		t.Fatalf("key printed:\n%s", out)
	}
	// A failing command: exit non-zero, neither its output nor the key shown.
	os.WriteFile(path, []byte("api_key_cmd = \"echo "+testKey+"; exit 1\"\n"), 0o600)
	code, out, stderr = runCmd(t, "config")
	if code == exitOK || !strings.Contains(stderr, "api_key_cmd") || strings.Contains(out+stderr, "DOCTORSECRET") {
		t.Fatalf("exit %d:\n%s%s", code, out, stderr)
	}
}

func TestConfigBadFileExitsWithMessage(t *testing.T) {
	path := isolateConfig(t)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("model = \"m\"\nmemory = \"lots\"\n"), 0o600)
	code, _, stderr := runCmd(t, "config")
	if code != exitFailed || !strings.Contains(stderr, path+":2") || !strings.Contains(stderr, "memory") || !strings.Contains(stderr, "fix:") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestConfigNoSetupNote(t *testing.T) {
	isolateConfig(t)
	code, out, _ := runCmd(t, "config")
	if code != exitOK || !strings.Contains(out, "export OPENAI_API_KEY") || !strings.Contains(out, "ollama pull") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestConfigInitWritesTemplateOnce(t *testing.T) {
	path := isolateConfig(t)
	code, out, stderr := runCmd(t, "config", "init")
	if code != exitOK || !strings.Contains(out, path) {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	body, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(body), "# timeout = \"2m\"") {
		t.Fatalf("template: %v\n%s", err, body)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	os.WriteFile(path, []byte("model = \"mine\"\n"), 0o600)
	code, _, stderr = runCmd(t, "config", "init")
	if code == exitOK || !strings.Contains(stderr, "already exists") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "model = \"mine\"\n" {
		t.Fatal("config init overwrote the file")
	}
	// --config chooses where.
	other := filepath.Join(t.TempDir(), "sub", "q.toml")
	if code, _, stderr := runCmd(t, "config", "init", "--config", other); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal(err)
	}
}

func TestConfigHelpListsSettings(t *testing.T) {
	isolateConfig(t)
	code, stdout, _ := runCmd(t, "config", "--help")
	if code != exitOK || !strings.Contains(stdout, "QUARRY_MEMORY") || !strings.Contains(stdout, "--tool-mode") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}
