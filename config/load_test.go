package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDefaultsWithoutFile(t *testing.T) {
	c, err := merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != DefaultModel || c.Provider != ProviderOpenAI || c.Timeout != 2*time.Minute ||
		c.Memory != 2<<30 || c.CPUs != 2 || c.OutputDir != DefaultOutputDir || c.MaxSteps != 20 ||
		c.ToolMode != "auto" || c.Images != "auto" || c.Theme != "auto" || c.Share != ShareValues || !c.Stream || c.StallTimeout != 90*time.Second || c.FileLoaded {
		t.Fatalf("defaults: %+v", c)
	}
	if c.Source("model") != "default" || c.Source("provider") != "inferred from base_url" {
		t.Fatalf("sources: model %q provider %q", c.Source("model"), c.Source("provider"))
	}
	if _, ok := c.Prices["gpt-4o-mini"]; !ok {
		t.Fatal("built-in prices missing")
	}
}

func TestPrecedenceAcrossFourLayers(t *testing.T) {
	path := writeFile(t, `
model = "file-model"
tool_mode = "markdown"
timeout = "30s"
memory = "1g"
max_steps = 7
images = "off"
`)
	// model: file < env < flag; tool_mode: file < env; timeout: file only;
	// memory: file < env; max_steps: file < flag; images: file; theme: default.
	getenv := env(
		"QUARRY_CONFIG", path,
		"QUARRY_MODEL", "env-model",
		"QUARRY_TOOL_MODE", "native",
		"QUARRY_MEMORY", "512m",
	)
	c, err := merge(Overrides{Model: "flag-model", MaxSteps: 3}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ key, got, want, src string }{
		{"model", c.Model, "flag-model", "flag --model"},
		{"tool_mode", c.ToolMode, "native", "env QUARRY_TOOL_MODE"},
		{"timeout", c.Timeout.String(), "30s", "file " + path + ":4"},
		{"memory", formatSize(c.Memory), "512m", "env QUARRY_MEMORY"},
		{"max_steps", c.Source("max_steps"), "flag --max-steps", "flag --max-steps"},
		{"images", c.Images, "off", "file " + path + ":7"},
		{"theme", c.Theme, "auto", "default"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.key, tc.got, tc.want)
		}
		if got := c.Source(tc.key); got != tc.src {
			t.Errorf("%s source = %q, want %q", tc.key, got, tc.src)
		}
	}
	if c.MaxSteps != 3 {
		t.Errorf("max_steps = %d, want 3", c.MaxSteps)
	}
	if c.Source("config file") != "env QUARRY_CONFIG" {
		t.Errorf("config file source %q", c.Source("config file"))
	}
}

func TestFlagConfigPathBeatsEnv(t *testing.T) {
	a := writeFile(t, `model = "a"`)
	b := writeFile(t, `model = "b"`)
	c, err := merge(Overrides{ConfigPath: b}, env("QUARRY_CONFIG", a))
	if err != nil || c.Model != "b" || c.File != b {
		t.Fatalf("model %q file %q err %v", c.Model, c.File, err)
	}
}

func TestXDGDefaultPath(t *testing.T) {
	dir := t.TempDir()
	if got := defaultPath(env("XDG_CONFIG_HOME", dir)); got != dir+"/quarry/config.toml" {
		t.Fatal(got)
	}
	if got := defaultPath(env("HOME", "/home/x")); got != "/home/x/.config/quarry/config.toml" {
		t.Fatal(got)
	}
}

func TestOpenAIBaseURLAndQuarryBaseURL(t *testing.T) {
	getenv := env("XDG_CONFIG_HOME", t.TempDir(), "OPENAI_BASE_URL", "http://openai-env:1/v1", "QUARRY_BASE_URL", "http://quarry-env:2/v1/")
	c, err := merge(Overrides{}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://quarry-env:2/v1" || c.Source("base_url") != "env QUARRY_BASE_URL" {
		t.Fatalf("base_url %q from %q", c.BaseURL, c.Source("base_url"))
	}
	if c.Provider != ProviderCompatible {
		t.Fatalf("provider %q, want compatible inferred", c.Provider)
	}
	c, _ = merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir(), "OPENAI_BASE_URL", "http://openai-env:1/v1"))
	if c.BaseURL != "http://openai-env:1/v1" || c.Source("base_url") != "env OPENAI_BASE_URL" {
		t.Fatalf("base_url %q from %q", c.BaseURL, c.Source("base_url"))
	}
}

func TestProfiles(t *testing.T) {
	path := writeFile(t, `profile = "local"
model = "top"
max_steps = 9

[profiles.local]
provider = "ollama"
model = "qwen2.5-coder:7b"

[profiles.azure]
provider = "azure"
base_url = "https://res.openai.azure.com"
model = "deploy-1"
api_key_env = "AZURE_OPENAI_API_KEY"

[profiles.azure.prices."deploy-1"]
input = 1
output = 2
`)
	// profile = "local" in the file.
	c, err := merge(Overrides{ConfigPath: path}, env())
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "local" || c.Provider != ProviderOllama || c.Model != "qwen2.5-coder:7b" || c.MaxSteps != 9 ||
		c.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("local profile: %+v", c)
	}
	if !strings.HasPrefix(c.Source("model"), "profile local, file "+path+":7") {
		t.Fatalf("model source %q", c.Source("model"))
	}
	// QUARRY_PROFILE beats the file, --profile beats QUARRY_PROFILE.
	c, err = merge(Overrides{ConfigPath: path}, env("QUARRY_PROFILE", "azure"))
	if err != nil || c.Profile != "azure" || c.Provider != ProviderAzure || c.APIKeyEnv != "AZURE_OPENAI_API_KEY" {
		t.Fatalf("env profile: %v %+v", err, c)
	}
	if p := c.Prices["deploy-1"]; p.Input != 1 || p.Output != 2 {
		t.Fatalf("profile prices: %+v", p)
	}
	c, err = merge(Overrides{ConfigPath: path, Profile: "local"}, env("QUARRY_PROFILE", "azure"))
	if err != nil || c.Profile != "local" || c.Source("profile") != "flag --profile" {
		t.Fatalf("flag profile: %v %q %q", err, c.Profile, c.Source("profile"))
	}
	// The environment still beats the profile.
	c, err = merge(Overrides{ConfigPath: path}, env("QUARRY_MODEL", "env-model"))
	if err != nil || c.Model != "env-model" {
		t.Fatalf("env over profile: %v %q", err, c.Model)
	}
}

func TestUnknownProfileListsKnown(t *testing.T) {
	path := writeFile(t, "[profiles.work]\nmodel = \"a\"\n[profiles.home]\nmodel = \"b\"\n")
	_, err := merge(Overrides{ConfigPath: path, Profile: "wrok"}, env())
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"flag --profile", `"wrok"`, "known profiles: home, work", `did you mean "work"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// Chosen in the file: the message names the file and line.
	path = writeFile(t, "model = \"x\"\nprofile = \"nope\"\n[profiles.work]\nmodel = \"a\"\n")
	_, err = merge(Overrides{ConfigPath: path}, env())
	if err == nil || !strings.Contains(err.Error(), path+":2") || !strings.Contains(err.Error(), "known profiles: work") {
		t.Fatalf("err %v", err)
	}
	// No file at all.
	_, err = merge(Overrides{Profile: "work"}, env("XDG_CONFIG_HOME", t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "no config file") || !strings.Contains(err.Error(), "quarry config init") {
		t.Fatalf("err %v", err)
	}
}

func TestMissingExplicitFile(t *testing.T) {
	_, err := merge(Overrides{}, env("QUARRY_CONFIG", "/nonexistent/q.toml"))
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/q.toml") || !strings.Contains(err.Error(), "env QUARRY_CONFIG") {
		t.Fatalf("err %v", err)
	}
}

func TestFlagsValidated(t *testing.T) {
	_, err := merge(Overrides{ToolMode: "foo"}, env("XDG_CONFIG_HOME", t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "flag --tool-mode") || !strings.Contains(err.Error(), "auto, native, markdown") {
		t.Fatalf("err %v", err)
	}
}

func TestProviderNeedsBaseURL(t *testing.T) {
	path := writeFile(t, `provider = "azure"`)
	_, err := merge(Overrides{ConfigPath: path}, env())
	if err == nil || !strings.Contains(err.Error(), "needs base_url") {
		t.Fatalf("err %v", err)
	}
}

func TestPriceOf(t *testing.T) {
	c := defaults()
	if p, ok := c.PriceOf("gpt-4o-mini-2024-07-18"); !ok || p != c.Prices["gpt-4o-mini"] {
		t.Fatalf("%v %v", p, ok)
	}
	if _, ok := c.PriceOf("llama3"); ok {
		t.Fatal("unexpected price")
	}
}

// The agent treats a non-empty AzureAPIVersion as Azure: only azure sets it.
func TestAzureAPIVersionOnlyForAzure(t *testing.T) {
	path := writeFile(t, "azure_api_version = \"2025-01-01\"\n[profiles.az]\nprovider = \"azure\"\nbase_url = \"https://r.openai.azure.com\"\n[profiles.az2]\nprovider = \"azure\"\nbase_url = \"https://r.openai.azure.com\"\nazure_api_version = \"2024-06-01\"\n")
	c, err := merge(Overrides{ConfigPath: path}, env())
	if err != nil || c.AzureAPIVersion != "" {
		t.Fatalf("openai: %q %v", c.AzureAPIVersion, err)
	}
	c, err = merge(Overrides{ConfigPath: path, Profile: "az"}, env())
	if err != nil || c.AzureAPIVersion != "2025-01-01" {
		t.Fatalf("az: %q %v", c.AzureAPIVersion, err)
	}
	c, _ = merge(Overrides{ConfigPath: path, Profile: "az2"}, env())
	if c.AzureAPIVersion != "2024-06-01" {
		t.Fatalf("az2: %q", c.AzureAPIVersion)
	}
	c, _ = merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir(), "QUARRY_BASE_URL", "https://x.openai.azure.com"))
	if c.Provider != ProviderAzure || c.AzureAPIVersion != DefaultAzureAPIVersion {
		t.Fatalf("inferred azure: %q %q", c.Provider, c.AzureAPIVersion)
	}
}
