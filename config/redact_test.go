package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/agent/openaitest"
)

const urlSecret = "sk-URLSECRET42"

func TestDescribeHidesKeyInBaseURL(t *testing.T) {
	for _, base := range []string{
		"https://user:" + urlSecret + "@proxy.example/v1",
		"https://proxy.example/v1?api-key=" + urlSecret,
		"https://proxy.example/v1?key=" + urlSecret,
	} {
		c := noKeyConfig(t, "OPENAI_BASE_URL", base)
		if c.BaseURL != base {
			t.Fatalf("BaseURL %q: the real value must still reach requests", c.BaseURL)
		}
		var b strings.Builder
		for _, l := range Describe(c) {
			fmt.Fprintln(&b, l.Key, l.Value, l.Source)
		}
		fmt.Fprintf(&b, "%v %+v %#v %s %s\n", c, c, c, c, c.Endpoint())
		if out := b.String(); strings.Contains(out, "URLSECRET") || !strings.Contains(out, "proxy.example/v1") {
			t.Fatalf("base_url %s printed as:\n%s", base, out)
		}
	}
}

func TestErrorsHideKeyInBaseURL(t *testing.T) {
	// Unreachable endpoint.
	err := CheckModel(context.Background(), modelConfig("http://u:"+urlSecret+"@127.0.0.1:1/v1?api-key="+urlSecret, "m", ""))
	if err == nil || strings.Contains(err.Error(), "URLSECRET") {
		t.Fatalf("err %v", err)
	}
	// Unknown model at a real (fake) server.
	srv := openaitest.New(t)
	srv.SetModels("gpt-4o")
	base := strings.Replace(srv.URL, "http://", "http://u:"+urlSecret+"@", 1)
	err = CheckModel(context.Background(), modelConfig(base, "gpt-4x", ""))
	var um *UnknownModelError
	if !errors.As(err, &um) || strings.Contains(err.Error(), "URLSECRET") {
		t.Fatalf("err %v", err)
	}
	// No key for OpenAI's API at a configured URL.
	c := noKeyConfig(t, "OPENAI_BASE_URL", "https://u:"+urlSecret+"@api.openai.com/v1")
	c.Provider = ProviderOpenAI
	if _, _, err := Resolve(context.Background(), c); err == nil || strings.Contains(err.Error(), "URLSECRET") {
		t.Fatalf("err %v", err)
	}
	// A base_url that is no URL.
	_, err = merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir(), "OPENAI_BASE_URL", "ftp://u:"+urlSecret+"@host/v1"))
	if err == nil || strings.Contains(err.Error(), "URLSECRET") {
		t.Fatalf("err %v", err)
	}
}
