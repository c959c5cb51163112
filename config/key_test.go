package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const keySecret = "sk-test-SECRET-0123456789abcdef"

func TestKeyFromNamedEnv(t *testing.T) {
	path := writeFile(t, `api_key_env = "MY_KEY"`)
	c, err := merge(Overrides{ConfigPath: path}, env())
	if err != nil {
		t.Fatal(err)
	}
	if err := resolveKey(context.Background(), &c, env("MY_KEY", " "+keySecret+"\n", "OPENAI_API_KEY", "other")); err != nil {
		t.Fatal(err)
	}
	if c.APIKey != keySecret || c.APIKeySource != "env MY_KEY" {
		t.Fatalf("key source %q, key ok %v", c.APIKeySource, c.APIKey == keySecret)
	}
}

func TestKeyFromCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "key.sh")
	// Like `pass show`: the key on the first line, metadata after it.
	os.WriteFile(script, []byte("#!/bin/sh\necho '"+keySecret+"'\necho 'url: example'\n"), 0o700)
	c := defaults()
	c.APIKeyCmd = script
	if err := resolveKey(context.Background(), &c, env("OPENAI_API_KEY", "env-key")); err != nil {
		t.Fatal(err)
	}
	if c.APIKey != keySecret || c.APIKeySource != "api_key_cmd" {
		t.Fatalf("source %q", c.APIKeySource)
	}
}

func TestKeyCommandFailureDoesNotEchoOutput(t *testing.T) {
	cases := map[string]string{
		"exit 3":    "echo " + keySecret + "; echo " + keySecret + " >&2; exit 3",
		"no output": "true",
		"not found": "/nonexistent/quarry-key-helper",
	}
	for name, cmd := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, fmt.Sprintf("api_key_cmd = %q\n", cmd))
			c, err := merge(Overrides{ConfigPath: path}, env())
			if err != nil {
				t.Fatal(err)
			}
			err = resolveKey(context.Background(), &c, env())
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if strings.Contains(msg, "SECRET") || strings.Contains(msg, cmd) {
				t.Fatalf("message echoes the output or the command:\n%s", msg)
			}
			if !strings.Contains(msg, "api_key_cmd") || !strings.Contains(msg, path) || !strings.Contains(msg, "fix:") {
				t.Fatalf("message lacks key, file or fix:\n%s", msg)
			}
		})
	}
}

func TestConfigFormattingHidesKey(t *testing.T) {
	c := defaults()
	c.APIKey = keySecret
	c.APIKeySource = "env OPENAI_API_KEY"
	holder := struct{ Cfg Config }{c}
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q", "%X", "%10v"} {
		for _, v := range []any{c, &c, holder, &holder} {
			out := fmt.Sprintf(f, v)
			if strings.Contains(out, "SECRET") || strings.Contains(out, fmt.Sprintf("%x", keySecret)) || strings.Contains(out, fmt.Sprintf("%X", keySecret)) {
				t.Errorf("%s of %T leaks the key: %s", f, v, out)
			}
		}
	}
	if !strings.Contains(fmt.Sprintf("%+v", c), "APIKey:[hidden]") {
		t.Errorf("%%+v should show the key as hidden: %+v", c)
	}
	if !strings.HasPrefix(fmt.Sprintf("%#v", c), "config.Config{") {
		t.Errorf("%%#v: %#v", c)
	}
	if strings.Contains(c.String()+c.GoString(), "SECRET") {
		t.Error("String/GoString leak the key")
	}
	if c.APIKey != keySecret {
		t.Error("formatting changed the key")
	}
}

func TestDescribeHidesKey(t *testing.T) {
	c, err := merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	resolveKey(context.Background(), &c, env("OPENAI_API_KEY", keySecret))
	var b strings.Builder
	for _, l := range Describe(c) {
		fmt.Fprintln(&b, l.Key, l.Value, l.Source, l.Help)
	}
	out := b.String()
	if strings.Contains(out, "SECRET") || strings.Contains(out, "sk-test") {
		t.Fatalf("Describe leaks the key:\n%s", out)
	}
	if !strings.Contains(out, "set (from env OPENAI_API_KEY)") {
		t.Fatalf("Describe does not say the key is set:\n%s", out)
	}
}

func TestOpenAIKeyNotSentToOllama(t *testing.T) {
	path := writeFile(t, "provider = \"ollama\"\n")
	c, err := merge(Overrides{ConfigPath: path}, env())
	if err != nil {
		t.Fatal(err)
	}
	resolveKey(context.Background(), &c, env("OPENAI_API_KEY", keySecret))
	if c.APIKey != "" {
		t.Fatal("the OpenAI key went to Ollama")
	}
	path = writeFile(t, "provider = \"ollama\"\napi_key_env = \"OLLAMA_KEY\"\n")
	c, _ = merge(Overrides{ConfigPath: path}, env())
	resolveKey(context.Background(), &c, env("OLLAMA_KEY", keySecret))
	if c.APIKey != keySecret {
		t.Fatal("a named key for Ollama was dropped")
	}
}

// With Ollama the default key variable is not sent, and config says so
// rather than calling a set variable empty.
func TestDescribeKeyWithOllama(t *testing.T) {
	getenv := env("XDG_CONFIG_HOME", t.TempDir(), "QUARRY_PROVIDER", "ollama", "OPENAI_API_KEY", keySecret)
	c, err := merge(Overrides{}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	resolveKey(context.Background(), &c, getenv)
	for _, l := range Describe(c) {
		if l.Key == "api key" && !strings.Contains(l.Value, "not used: Ollama needs none") {
			t.Errorf("api key: %q", l.Value)
		}
	}
}
