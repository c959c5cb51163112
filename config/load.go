package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/source"
)

func defaultPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "quarry", "config.toml")
}

// Path says which config file Load reads and why: the --config flag, then
// QUARRY_CONFIG, then the default. explicit is true for the first two, where a
// missing file is an error.
func Path(o Overrides) (path, from string, explicit bool) {
	return configPath(o, os.Getenv)
}

func configPath(o Overrides, getenv func(string) string) (string, string, bool) {
	if o.ConfigPath != "" {
		return expandHome(o.ConfigPath), "flag --config", true
	}
	if p := getenv(ConfigEnv); p != "" {
		return expandHome(p), "env " + ConfigEnv, true
	}
	return defaultPath(getenv), "default location", false
}

// Load merges defaults < file < environment < flags and resolves the API
// key (running api_key_cmd when set). It does not probe any server: see
// Resolve for the zero-configuration fallback to Ollama.
func Load(o Overrides) (Config, error) {
	c, err := Merge(o)
	if err != nil {
		return c, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), keyCmdTimeout)
	defer cancel()
	if err := ResolveKey(ctx, &c); err != nil {
		return c, err
	}
	return c, nil
}

// Merge is Load without resolving the key, for `quarry config`, which must
// show the settings even when the key command fails.
func Merge(o Overrides) (Config, error) {
	return merge(o, os.Getenv)
}

func merge(o Overrides, getenv func(string) string) (Config, error) {
	c := defaults()
	c.sources = map[string]string{}
	for _, s := range settings {
		c.sources[s.Key] = "default"
	}
	c.sources["prices"] = "built-in"
	c.sources["profile"] = "default"

	path, from, explicit := configPath(o, getenv)
	c.File = path
	c.sources["config file"] = from
	var doc *fileDoc
	if _, err := os.Stat(path); err == nil {
		d, err := readFile(path)
		if err != nil {
			return c, err
		}
		doc, c.FileLoaded = d, true
	} else if explicit {
		return c, &Error{Where: from, File: path, Problem: "the config file does not exist",
			Fix: "create it with: quarry config init --config " + path + "   (or fix the path)"}
	}

	// File, then the chosen profile within it.
	if doc != nil {
		applyFileLayer(&c, doc.top, fmt.Sprintf("file %s", path))
	}
	if err := chooseProfile(&c, o, doc, getenv); err != nil {
		return c, err
	}
	if c.Profile != "" {
		applyFileLayer(&c, doc.profiles[c.Profile], fmt.Sprintf("profile %s, file %s", c.Profile, path))
	}

	// Environment.
	for i := range settings {
		s := &settings[i]
		for _, name := range s.Env {
			text := getenv(name)
			if strings.TrimSpace(text) == "" {
				continue
			}
			v, problem := s.fromText(text)
			if problem != "" {
				return c, &Error{Where: "env " + name, Key: s.Key, Problem: problem, Fix: s.fix(layerEnv)}
			}
			s.set(&c, v)
			c.sources[s.Key] = "env " + name
			break
		}
	}

	if err := daskFallback(&c, o, getenv); err != nil {
		return c, err
	}

	// Flags.
	for _, v := range o.DB {
		spec, err := source.ParseFlag(v)
		if err != nil {
			return c, &Error{Where: "flag --db", Key: "sources", Problem: err.Error(), Fix: "write --db " + source.Examples()}
		}
		if c.Sources == nil {
			c.Sources = map[string]string{}
		}
		c.Sources[spec.Name] = spec.URL
		c.sources["sources"] = "flag --db"
	}
	for key, text := range flagValues(o) {
		s, _ := lookupSetting(key)
		v, problem := s.fromText(text)
		if problem != "" {
			return c, &Error{Where: "flag --" + s.Flag, Key: s.Key, Problem: problem, Fix: s.fix(layerFlag)}
		}
		s.set(&c, v)
		c.sources[key] = "flag --" + s.Flag
	}

	if err := settle(&c); err != nil {
		return c, err
	}
	return c, nil
}

func applyFileLayer(c *Config, l fileLayer, where string) {
	for key, fv := range l.values {
		s, _ := lookupSetting(key)
		s.set(c, fv.v)
		c.sources[key] = fmt.Sprintf("%s:%d", where, fv.line)
	}
	for name, u := range l.sources {
		if c.Sources == nil {
			c.Sources = map[string]string{}
		}
		c.Sources[name] = u
		c.sources["sources"] = where
	}
	applyDask(c, l.dask, where)
	if len(l.prices) > 0 {
		for m, p := range l.prices {
			c.Prices[m] = p
		}
		c.sources["prices"] = fmt.Sprintf("built-in + %s:%d", where, l.pricesLine)
	}
}

// chooseProfile picks the profile: --profile, QUARRY_PROFILE, then
// profile = "..." in the file.
func chooseProfile(c *Config, o Overrides, doc *fileDoc, getenv func(string) string) error {
	name, where, line := o.Profile, "flag --profile", 0
	if name == "" {
		name, where = strings.TrimSpace(getenv(ProfileEnv)), "env "+ProfileEnv
	}
	if name == "" && doc != nil && doc.profile != "" {
		name, where, line = doc.profile, "", doc.profileLine
	}
	if name == "" {
		return nil
	}
	if doc == nil {
		return &Error{Where: where, Key: "profile", Problem: fmt.Sprintf("profile %q is chosen but there is no config file (%s)", name, c.File),
			Fix: "write one with quarry config init, add a [profiles." + name + "] table to it, or drop the profile"}
	}
	if _, ok := doc.profiles[name]; !ok {
		known := doc.profileNames()
		problem := fmt.Sprintf("profile %q is not defined in the file", name)
		fix := fmt.Sprintf("add a [profiles.%s] table to %s", name, doc.path)
		if len(known) > 0 {
			problem += "; known profiles: " + strings.Join(known, ", ")
			if near := closest(name, known, 1, true); len(near) > 0 {
				fix = fmt.Sprintf("did you mean %q? Or add a [profiles.%s] table to %s", near[0], name, doc.path)
			}
		} else {
			problem += "; it defines no profiles"
		}
		e := &Error{Where: where, Key: "profile", Problem: problem, Fix: fix}
		if where == "" {
			e.File, e.Line = doc.path, line
		}
		return e
	}
	c.Profile = name
	if where == "" {
		where = fmt.Sprintf("file %s:%d", doc.path, line)
	}
	c.sources["profile"] = where
	return nil
}

func flagValues(o Overrides) map[string]string {
	m := map[string]string{}
	add := func(key, v string) {
		if v != "" {
			m[key] = v
		}
	}
	add("model", o.Model)
	add("base_url", o.BaseURL)
	add("tool_mode", o.ToolMode)
	add("output_dir", o.OutputDir)
	add("images", o.Images)
	add("share", o.Share)
	add("verify", o.Verify)
	if o.Timeout != 0 {
		add("timeout", o.Timeout.String())
	}
	if o.MaxSteps != 0 {
		add("max_steps", strconv.Itoa(o.MaxSteps))
	}
	if o.Confirm {
		add("confirm", "true")
	}
	return m
}

// settle infers the provider and checks settings that depend on each other.
func settle(c *Config) error {
	if c.Provider == "" {
		switch {
		case c.BaseURL == "" || strings.Contains(c.BaseURL, "api.openai.com"):
			c.Provider = ProviderOpenAI
		case strings.Contains(c.BaseURL, ".openai.azure.com"):
			c.Provider = ProviderAzure
		case strings.Contains(c.BaseURL, ":11434"):
			c.Provider = ProviderOllama
		default:
			c.Provider = ProviderCompatible
		}
		c.sources["provider"] = "inferred from base_url"
	}
	// The agent takes a non-empty AzureAPIVersion to mean Azure.
	if c.Provider == ProviderAzure && c.AzureAPIVersion == "" {
		c.AzureAPIVersion = DefaultAzureAPIVersion
		c.sources["azure_api_version"] = "default for provider azure"
	} else if c.Provider != ProviderAzure {
		c.AzureAPIVersion = ""
	}
	switch c.Provider {
	case ProviderAzure, ProviderCompatible:
		if c.BaseURL == "" {
			return &Error{File: fileIfFrom(c, "provider"), Where: c.sources["provider"], Key: "base_url",
				Problem: fmt.Sprintf("provider %s needs base_url", c.Provider),
				Fix:     `set base_url to the server's API address, e.g. base_url = "https://NAME.openai.azure.com" for Azure or "http://localhost:8000/v1"`}
		}
	case ProviderOllama:
		if c.BaseURL == "" {
			c.BaseURL = "http://127.0.0.1:11434/v1"
			c.sources["base_url"] = "default for provider ollama"
		}
	}
	return nil
}

func fileIfFrom(c *Config, key string) string {
	if strings.Contains(c.sources[key], "file ") && c.FileLoaded {
		return c.File
	}
	return ""
}

// Source says where a setting's effective value came from: "default",
// "file PATH:LINE", "profile NAME, file PATH:LINE", "env NAME", "flag --NAME".
func (c Config) Source(key string) string {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return "default"
}

// configured reports whether a setting was set anywhere but the defaults.
func (c Config) configured(key string) bool {
	s := c.Source(key)
	return s != "default" && !strings.HasPrefix(s, "default ")
}

const keyCmdTimeout = 15 * time.Second
