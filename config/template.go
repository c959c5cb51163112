package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Template is the commented config file `quarry config init` writes: every
// setting with its help, commented out, at its default or, for a setting
// whose default is "unset" or another setting's, at an example said to be one.
func Template() string {
	var b strings.Builder
	b.WriteString(`# quarry configuration, written by "quarry config init".
# Precedence: built-in defaults < this file < environment (QUARRY_*, OPENAI_API_KEY,
# OPENAI_BASE_URL) < command-line flags. "quarry config" shows the effective values
# and where each came from. Every setting is commented out, shown at its default
# or at an example (said so); remove the "# " in front of one to set it.
#
# API keys never go in this file: quarry reads the key from the environment
# variable named by api_key_env, or from the output of api_key_cmd.

# The profile used when neither --profile nor QUARRY_PROFILE chooses one
# (profiles are at the end of this file). Unset by default; an example:
# profile = "local"

`)
	def := defaults()
	for _, s := range settings {
		writeComment(&b, s.Help)
		var env []string
		env = append(env, s.Env...)
		if len(env) > 0 || s.Flag != "" {
			line := ""
			if len(env) > 0 {
				line = "Environment: " + strings.Join(env, ", ") + "."
			}
			if s.Flag != "" {
				line = strings.TrimSpace(line + " Flag: --" + s.Flag + ".")
			}
			writeComment(&b, line)
		}
		if d := s.shownDefault(def); !s.sameValue(d) {
			writeComment(&b, "Default: "+d+". An example:")
		}
		fmt.Fprintf(&b, "# %s = %s\n\n", s.Key, s.Example)
	}
	b.WriteString("# Prices in US dollars per million tokens, for the cost shown after each answer.\n")
	names := make([]string, 0)
	for n := range builtinPrices() {
		names = append(names, n)
	}
	sort.Strings(names)
	writeComment(&b, "Built in: "+strings.Join(names, ", ")+". Add or override models here; quote names that contain dots.")
	b.WriteString(`# [prices."my-model"]
# input = 0.50
# output = 1.50

# Databases that sql(query, db=NAME) reads, read-only, through quarry on the
# host (the sandbox keeps no network). The password comes from the URL,
# PGPASSWORD or ~/.pgpass, as psql finds it; it is never shown. A profile
# may have its own: [profiles.NAME.sources.DB]. Flag: --db NAME=URL.
#
# [sources.sales]
# url = "postgres://analyst@db.example.com:5432/sales"

# Profiles override any setting above for one provider; choose one with
# --profile NAME, QUARRY_PROFILE=NAME or profile = "NAME" at the top.
#
# [profiles.azure]
# provider = "azure"
# base_url = "https://YOUR-RESOURCE.openai.azure.com"
# model = "YOUR-DEPLOYMENT"
# api_key_env = "AZURE_OPENAI_API_KEY"
# azure_api_version = "` + DefaultAzureAPIVersion + `"
#
# [profiles.local]
# provider = "ollama"
# base_url = "http://127.0.0.1:11434/v1"
# model = "qwen2.5-coder:7b"
#
# [profiles.openrouter]
# provider = "compatible"
# base_url = "https://openrouter.ai/api/v1"
# model = "qwen/qwen-2.5-coder-32b-instruct"
# api_key_env = "OPENROUTER_API_KEY"
`)
	return b.String()
}

func writeComment(b *strings.Builder, text string) {
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 80 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	if line != "#" {
		b.WriteString(line + "\n")
	}
}

// ErrExists is returned by WriteTemplate when the file is already there.
var ErrExists = errors.New("config file already exists")

// WriteTemplate writes Template to path, creating its folder; it never
// overwrites an existing file.
func WriteTemplate(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config init: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s\n  fix: edit it, or move it away first to write a fresh template", ErrExists, path)
	}
	if err != nil {
		return fmt.Errorf("config init: %w", err)
	}
	if _, err := f.WriteString(Template()); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("config init: %w", err)
	}
	return f.Close()
}

// shownDefault is the setting's default as the template says it.
func (s Setting) shownDefault(def Config) string {
	switch d := s.get(def); {
	case s.defaultText != "":
		return s.defaultText
	case d == "":
		return "unset"
	default:
		return d
	}
}

// sameValue tells whether the example is the default d (90s is 1m30s).
func (s Setting) sameValue(d string) bool {
	ex := strings.Trim(s.Example, `"`)
	if s.kind == kindDuration {
		a, errA := time.ParseDuration(ex)
		b, errB := time.ParseDuration(d)
		return errA == nil && errB == nil && a == b
	}
	return ex == d
}
