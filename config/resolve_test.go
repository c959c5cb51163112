package config

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeOllama answers GET /api/tags with the given model names.
func fakeOllama(t *testing.T, models ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		b.WriteString(`{"models":[`)
		for i, m := range models {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name":"` + m + `","model":"` + m + `","size":1}`)
		}
		b.WriteString("]}")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func noKeyConfig(t *testing.T, kv ...string) Config {
	t.Helper()
	c, err := merge(Overrides{}, env(append([]string{"XDG_CONFIG_HOME", t.TempDir()}, kv...)...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestResolveUsesOllamaWithoutKey(t *testing.T) {
	host := fakeOllama(t, "nomic-embed-text:latest", "llama3.2:3b", "qwen2.5-instruct:7b", "qwen2.5-coder:7b")
	t.Setenv("QUARRY_OLLAMA_HOST", host)
	c, notice, err := Resolve(context.Background(), noKeyConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider != ProviderOllama || c.BaseURL != host+"/v1" || c.Model != "qwen2.5-coder:7b" {
		t.Fatalf("provider %q base %q model %q", c.Provider, c.BaseURL, c.Model)
	}
	if !strings.Contains(notice, "Ollama") || !strings.Contains(notice, host) || !strings.Contains(notice, "qwen2.5-coder:7b") {
		t.Fatalf("notice %q", notice)
	}
	if !strings.HasPrefix(c.Source("base_url"), "Ollama found") {
		t.Fatalf("source %q", c.Source("base_url"))
	}
}

func TestResolveOllamaKeepsConfiguredModel(t *testing.T) {
	host := fakeOllama(t, "qwen2.5-coder:7b", "llama3.2:latest")
	t.Setenv("QUARRY_OLLAMA_HOST", strings.TrimPrefix(host, "http://")) // no scheme is fine
	c, _, err := Resolve(context.Background(), noKeyConfig(t, "QUARRY_MODEL", "llama3.2"))
	if err != nil || c.Model != "llama3.2:latest" {
		t.Fatalf("model %q err %v", c.Model, err)
	}
	// A configured model Ollama lacks: pick one and say so.
	c, notice, err := Resolve(context.Background(), noKeyConfig(t, "QUARRY_MODEL", "gpt-4o"))
	if err != nil || c.Model != "qwen2.5-coder:7b" || !strings.Contains(notice, `no "gpt-4o"`) {
		t.Fatalf("model %q notice %q err %v", c.Model, notice, err)
	}
}

func TestResolveNeitherKeyNorOllama(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // a port nothing listens on
	t.Setenv("QUARRY_OLLAMA_HOST", srv.URL)
	_, _, err := Resolve(context.Background(), noKeyConfig(t))
	if !errors.Is(err, ErrNoModel) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"export OPENAI_API_KEY=", "ollama pull", "https://ollama.com", srv.URL, "quarry demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
}

func TestResolveOllamaWithoutModels(t *testing.T) {
	t.Setenv("QUARRY_OLLAMA_HOST", fakeOllama(t))
	_, _, err := Resolve(context.Background(), noKeyConfig(t))
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "ollama pull") || !strings.Contains(err.Error(), "quarry demo") {
		t.Fatalf("err %v", err)
	}
}

func TestResolveKeepsConfiguredEndpoint(t *testing.T) {
	// With a key: untouched, no probe.
	t.Setenv("QUARRY_OLLAMA_HOST", "http://127.0.0.1:1")
	c := noKeyConfig(t)
	c.APIKey = keySecret
	got, notice, err := Resolve(context.Background(), c)
	if err != nil || notice != "" || got.BaseURL != "" {
		t.Fatalf("%v %q %q", err, notice, got.BaseURL)
	}
	// A compatible server needs no key.
	c = noKeyConfig(t, "OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
	if _, _, err := Resolve(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	// OpenAI's own URL configured without a key: a clear error, no Ollama.
	c = noKeyConfig(t, "OPENAI_BASE_URL", "https://api.openai.com/v1")
	_, _, err = Resolve(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "export OPENAI_API_KEY") {
		t.Fatalf("err %v", err)
	}
}
