package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// DefaultOllamaHost is where the zero-configuration probe looks for Ollama;
// QUARRY_OLLAMA_HOST overrides it.
const DefaultOllamaHost = "http://127.0.0.1:11434"

// ollamaProbeTimeout is short: the probe runs at every start without a key.
const ollamaProbeTimeout = 1500 * time.Millisecond

// ErrNoModel is wrapped by the error Resolve returns when neither a key nor
// a local Ollama is available.
var ErrNoModel = errors.New("no model is set up")

// Resolve settles the model endpoint before a session starts. With a key,
// or a provider that needs none, the configuration is used as it is. With no
// key and no base URL configured it looks for Ollama on this machine and, if
// it answers, uses it and returns a notice saying so for the front end to
// print. Otherwise it returns one error that shows both ways to set up.
func Resolve(ctx context.Context, c Config) (Config, string, error) {
	if c.APIKey != "" || (c.Provider != ProviderOpenAI && c.Provider != ProviderAzure) {
		return c, "", nil
	}
	if c.configured("base_url") || c.Provider == ProviderAzure {
		return c, "", &Error{Where: c.Source("base_url"), Key: "api_key_env",
			Problem: fmt.Sprintf("no API key for %s at %s: %s is not set", c.Provider, c.Endpoint(), displayEnvName(c.APIKeyEnv)),
			Fix:     fmt.Sprintf("export %s=... in your shell, or set api_key_cmd in %s", displayEnvName(c.APIKeyEnv), c.File)}
	}
	host := ollamaHost()
	models, err := ollamaModels(ctx, host)
	if err != nil {
		return c, "", setupError(c, host)
	}
	if len(models) == 0 {
		return c, "", fmt.Errorf("%w: Ollama answers at %s but has no models, and %s is not set.\n  fix: ollama pull qwen2.5-coder:7b   (or export %s=sk-... to use OpenAI)\n%s",
			ErrNoModel, host, displayEnvName(c.APIKeyEnv), displayEnvName(c.APIKeyEnv), demoHint)
	}
	model, note := pickOllamaModel(c, models)
	c.Provider, c.BaseURL, c.Model = ProviderOllama, host+"/v1", model
	c.sources = cloneSources(c.sources)
	c.sources["provider"] = "Ollama found at " + host
	c.sources["base_url"] = "Ollama found at " + host
	if note != "" {
		c.sources["model"] = "chosen from Ollama's models"
	}
	notice := fmt.Sprintf("No API key set (%s): using Ollama at %s with model %s%s. Set a key or base_url to use another endpoint.",
		displayEnvName(c.APIKeyEnv), host, model, note)
	return c, notice, nil
}

func setupError(c Config, host string) error {
	env := displayEnvName(c.APIKeyEnv)
	return fmt.Errorf(`%w: %s is not set and no Ollama answers at %s.
Set up one of the two:
  • OpenAI (or a compatible service): export %s=sk-...
      other services: set base_url and the key in a profile (quarry config init writes examples)
  • a local model with Ollama: install it from https://ollama.com, then
      ollama pull qwen2.5-coder:7b   (and keep "ollama serve" running)
%s`, ErrNoModel, env, host, env, demoHint)
}

// demoHint offers a first look that needs no model.
const demoHint = "Meanwhile, quarry demo shows quarry at work with a scripted model and the real sandbox."

func ollamaHost() string {
	h := strings.TrimRight(strings.TrimSpace(os.Getenv(OllamaHostEnv)), "/")
	if h == "" {
		return DefaultOllamaHost
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return h
}

// ollamaModels lists the models of the Ollama server at host (GET /api/tags).
func ollamaModels(ctx context.Context, host string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ollama: status %d", resp.StatusCode)
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&tags); err != nil {
		return nil, fmt.Errorf("ollama: %w", err)
	}
	var names []string
	for _, m := range tags.Models {
		if printableName(m.Name) && !strings.Contains(strings.ToLower(m.Name), "embed") {
			names = append(names, m.Name)
		}
	}
	return names, nil
}

// pickOllamaModel keeps a configured model Ollama has, else prefers a coder,
// then an instruct model, else Ollama's first.
func pickOllamaModel(c Config, models []string) (string, string) {
	if c.configured("model") {
		for _, m := range models {
			if m == c.Model || strings.TrimSuffix(m, ":latest") == c.Model {
				return m, ""
			}
		}
	}
	pick := models[0]
	for _, want := range []string{"coder", "instruct"} {
		found := false
		for _, m := range models {
			if strings.Contains(strings.ToLower(m), want) {
				pick, found = m, true
				break
			}
		}
		if found {
			break
		}
	}
	if c.configured("model") {
		return pick, fmt.Sprintf(" (it has no %q)", c.Model)
	}
	return pick, " (chosen from its models)"
}

func cloneSources(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}
