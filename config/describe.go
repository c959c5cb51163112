package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/secret"
)

// Line is one row of `quarry config`: a setting, its effective value
// (never the key itself), where the value came from and the setting's help.
type Line struct {
	Key, Value, Source, Help string
}

// Describe lists the effective settings for `quarry config`.
func Describe(c Config) []Line {
	var out []Line
	fileSrc := c.Source("config file")
	if !c.FileLoaded {
		fileSrc += "; not found: quarry config init writes one"
	}
	out = append(out, Line{Key: "config file", Value: c.File, Source: fileSrc, Help: "The file read; --config or QUARRY_CONFIG choose another."})
	profile := c.Profile
	if profile == "" {
		profile = "(none)"
	}
	out = append(out, Line{Key: "profile", Value: profile, Source: c.Source("profile"), Help: "Chosen with --profile, QUARRY_PROFILE or profile = \"NAME\" in the file."})
	for _, s := range settings {
		v := s.get(c)
		if s.Key == "base_url" {
			v = secret.URL(v)
		}
		switch {
		case s.Key == "base_url" && v == "":
			v = "(OpenAI's: " + OpenAIBaseURL + ")"
		case s.Key == "azure_api_version" && v == "":
			v = "(not used: provider is not azure)"
		case s.Key == "image" && v == "":
			v = "(built-in recipe)"
		case v == "":
			v = "(unset)"
		}
		out = append(out, Line{Key: s.Key, Value: v, Source: c.Source(s.Key), Help: s.Help})
		if s.Key == "api_key_cmd" {
			out = append(out, keyLine(c))
		}
	}
	names := make([]string, 0, len(c.Prices))
	for n := range c.Prices {
		names = append(names, n)
	}
	sort.Strings(names)
	out = append(out, Line{Key: "prices", Value: fmt.Sprintf("%d models: %s", len(names), strings.Join(names, ", ")),
		Source: c.Source("prices"), Help: "US dollars per million tokens, per model, in [prices.\"MODEL\"] tables."})
	if len(c.Sources) > 0 {
		dbs := make([]string, 0, len(c.Sources))
		for n := range c.Sources {
			dbs = append(dbs, n)
		}
		sort.Strings(dbs)
		for i, n := range dbs {
			dbs[i] = n + " = " + secret.DBURL(c.Sources[n])
		}
		out = append(out, Line{Key: "sources", Value: strings.Join(dbs, "; "), Source: c.Source("sources"),
			Help: "Databases sql(query, db=NAME) reaches: [sources.NAME] url = \"postgres://…\" or --db NAME=URL. Passwords are never shown."})
	}
	return out
}

func keyLine(c Config) Line {
	l := Line{Key: "api key", Help: "Never shown, never written to disk, never passed to the sandbox."}
	switch {
	case c.APIKey != "":
		l.Value = "set (from " + c.APIKeySource + ")"
	case c.APIKeyCmd != "":
		l.Value = "not resolved (api_key_cmd is not run by this command)"
	case c.Provider == ProviderOllama && !c.configured("api_key_env"):
		l.Value = "not used: Ollama needs none (set api_key_env to send one)"
	default:
		l.Value = "not set (" + displayEnvName(c.APIKeyEnv) + " is empty)"
	}
	return l
}
