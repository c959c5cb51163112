package config

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

func modelConfig(url, model, key string) Config {
	c := defaults()
	c.Provider, c.BaseURL, c.Model, c.APIKey = ProviderCompatible, url, model, key
	c.APIKeySource = "env OPENAI_API_KEY"
	return c
}

func TestCheckModelKnown(t *testing.T) {
	srv := openaitest.New(t)
	srv.RequireKey(keySecret)
	if err := CheckModel(context.Background(), modelConfig(srv.URL, "gpt-fake", keySecret)); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("Authorization") != "Bearer "+keySecret {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestCheckModelSuggestsClosest(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetModels("gpt-4o", "gpt-4o-mini", "gpt-4.1-mini", "o3", "text-embedding-3-small", "dall-e-3")
	err := CheckModel(context.Background(), modelConfig(srv.URL, "gpt-4o-mni", ""))
	var um *UnknownModelError
	if !errors.As(err, &um) {
		t.Fatalf("err %v", err)
	}
	if len(um.Closest) == 0 || um.Closest[0] != "gpt-4o-mini" {
		t.Fatalf("closest %v", um.Closest)
	}
	if !strings.Contains(err.Error(), "gpt-4o-mini") || !strings.Contains(err.Error(), "--model gpt-4o-mini") {
		t.Fatalf("message %v", err)
	}
	err = CheckModel(context.Background(), modelConfig(srv.URL, "4.1-mini", ""))
	if !errors.As(err, &um) || um.Closest[0] != "gpt-4.1-mini" {
		t.Fatalf("err %v", err)
	}
}

func TestCheckModelWrongKeyDoesNotLeak(t *testing.T) {
	srv := openaitest.New(t)
	srv.RequireKey("sk-the-right-one-000000")
	// The fake, like OpenAI, quotes the wrong key in its 401 body.
	err := CheckModel(context.Background(), modelConfig(srv.URL, "gpt-fake", keySecret))
	if err == nil || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "sk-the-right") {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "refused the key") || !strings.Contains(err.Error(), "env OPENAI_API_KEY") {
		t.Fatalf("err %v", err)
	}
}

func TestCheckModelUnreachable(t *testing.T) {
	err := CheckModel(context.Background(), modelConfig("http://127.0.0.1:1/v1", "m", keySecret))
	if err == nil || !strings.Contains(err.Error(), "does not answer") || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("err %v", err)
	}
}

func TestClosest(t *testing.T) {
	got := closest("tool_mod", settingKeys(), 1, true)
	if len(got) != 1 || got[0] != "tool_mode" {
		t.Fatal(got)
	}
	if got := closest("zzzzzz", settingKeys(), 1, true); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestServerErrorIsShortAndSafe(t *testing.T) {
	body := []byte(`{"error":{"message":"bad \u001b[31mthing` + strings.Repeat("é", 300) + ` key ` + keySecret + `"}}`)
	got := shortBody(body, Config{APIKey: keySecret}.Masker())
	if strings.Contains(got, "SECRET") || strings.Contains(got, "\x1b") || len([]rune(got)) > 201 {
		t.Fatalf("%q", got)
	}
}

// Model names come from the endpoint: ones a terminal would act on are
// never offered, suggested or chosen.
func TestModelNamesWithControlsAreDropped(t *testing.T) {
	evil := "gpt-4o-mni\x1b]52;c;QUJD\x07"
	srv := openaitest.New(t)
	srv.SetModels("gpt-4o", evil, "gpt\u202e-4o-mini")
	names, err := ListModels(context.Background(), modelConfig(srv.URL, "gpt-4o", ""))
	if err != nil || len(names) != 1 || names[0] != "gpt-4o" {
		t.Errorf("ListModels = %q, %v", names, err)
	}
	if err := CheckModel(context.Background(), modelConfig(srv.URL, "gpt-4o-mini", "")); err == nil || strings.ContainsAny(err.Error(), "\x1b\a\u202e") {
		t.Errorf("CheckModel error %q", err)
	}
	host := fakeOllama(t, `coder\u001b[2J`, "llama3.2:3b")
	models, err := ollamaModels(context.Background(), host)
	if err != nil || len(models) != 1 || models[0] != "llama3.2:3b" {
		t.Errorf("ollamaModels = %q, %v", models, err)
	}
}
