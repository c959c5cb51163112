package config

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Each kind of bad configuration gives the file, the line, the key and a fix.
func TestBadConfiguration(t *testing.T) {
	cases := []struct {
		name string
		body string
		line int
		key  string
		want []string // in the message
	}{
		{"syntax error", "model = \"a\"\ntimeout = 2m\n", 2, "timeout", []string{"TOML syntax error", "fix:"}},
		{"unterminated string", "model = \"a\n", 1, "model", []string{"TOML syntax error"}},
		{"unknown key", "model = \"a\"\n\ntool_mod = \"native\"\n", 3, "tool_mod", []string{`unknown setting "tool_mod"`, "did you mean tool_mode?"}},
		{"renamed key", "send_examples = false\n", 1, "send_examples", []string{"replaced by share", `share = "schema"`}},
		{"invalid share", "share = \"none\"\n", 1, "share", []string{`"none" is not one of values, schema`}},
		{"stall timeout too short", "stall_timeout = \"10ms\"\n", 1, "stall_timeout", []string{"out of range"}},
		{"unknown key far from any", "zzzzzz = 1\n", 1, "zzzzzz", []string{"the settings are:", "model"}},
		{"unknown key in profile", "[profiles.w]\nmodle = \"x\"\n", 2, "profiles.w.modle", []string{`unknown setting "modle" in profile "w"`, "did you mean model?"}},
		{"wrong type string", "model = 5\n", 1, "model", []string{"must be a string in quotes, but it is an integer", `model = "gpt-4.1-mini"`}},
		{"wrong type int", "max_steps = \"ten\"\n", 1, "max_steps", []string{"must be a whole number, but it is a string", "max_steps = 20"}},
		{"wrong type bool", "confirm = \"yes\"\n", 1, "confirm", []string{"must be true or false", "confirm = false"}},
		{"wrong type duration", "timeout = 30\n", 1, "timeout", []string{"must be a string", `"90s"`}},
		{"invalid enum", "# c\ntool_mode = \"foo\"\n", 2, "tool_mode", []string{`"foo" is not one of auto, native, markdown`, `tool_mode = "auto"`}},
		{"invalid size", "memory = \"lots\"\n", 1, "memory", []string{`"lots" is not a size`, `"2g"`}},
		{"size too small", "memory = \"1m\"\n", 1, "memory", []string{"out of range", "64m"}},
		{"invalid duration", "timeout = \"5 minutes\"\n", 1, "timeout", []string{"is not a duration", `timeout = "2m"`}},
		{"invalid url", "base_url = \"localhost:8000\"\n", 1, "base_url", []string{"is not an http:// or https:// URL"}},
		{"bad price", "[prices.\"m\"]\ninput = \"cheap\"\n", 2, "prices.m.input", []string{"must be a number of dollars"}},
		{"unquoted dotted price", "[prices]\ngpt-4.1 = { input = 1, output = 2 }\n", 2, "prices.gpt-4.1", []string{`quote model names that contain dots`}},
		{"singular profile table", "[profile.work]\nmodel = \"x\"\n", 1, "profile", []string{"[profiles.NAME]"}},
		{"profile not a table", "profiles = 3\n", 1, "profiles", []string{"profiles must be tables"}},
		{"bad value in profile", "[profiles.x]\nimages = \"png\"\n", 2, "profiles.x.images", []string{`"png" is not one of`}},
		{"key in file", "api_key = \"sk-abcdefghijklmnop\"\n", 1, "api_key", []string{"never reads an API key from the config file"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.body)
			_, err := merge(Overrides{ConfigPath: path}, env())
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *Error, got %v", err)
			}
			if ce.File != path || ce.Line != tc.line || ce.Key != tc.key || ce.Fix == "" {
				t.Errorf("file %q line %d key %q fix %q; want line %d key %q", ce.File, ce.Line, ce.Key, ce.Fix, tc.line, tc.key)
			}
			msg := err.Error()
			if tc.line > 0 && !strings.Contains(msg, path+":"+itoa(tc.line)) {
				t.Errorf("message lacks file:line:\n%s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "abcdefghijklmnop") {
				t.Errorf("message echoes the key:\n%s", msg)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestSeveralProblemsReportedInOrder(t *testing.T) {
	path := writeFile(t, "model = 1\ntool_mode = \"x\"\ntheme = \"blue\"\n")
	_, err := merge(Overrides{ConfigPath: path}, env())
	msg := err.Error()
	i, j, k := strings.Index(msg, ":1:"), strings.Index(msg, ":2:"), strings.Index(msg, ":3:")
	if i < 0 || j < i || k < j {
		t.Fatalf("want three problems in line order:\n%s", msg)
	}
}

func TestSyntaxErrorDoesNotQuoteTheLine(t *testing.T) {
	path := writeFile(t, "model = \"a\"\napi_key = sk-secretvalue123456\n")
	_, err := merge(Overrides{ConfigPath: path}, env())
	if err == nil || strings.Contains(err.Error(), "secretvalue") {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), path+":2") {
		t.Fatalf("no line: %v", err)
	}
}

func TestEnvErrorsNameTheVariable(t *testing.T) {
	cases := map[string][]string{
		"QUARRY_TIMEOUT":   {"env QUARRY_TIMEOUT", "QUARRY_TIMEOUT=2m"},
		"QUARRY_MAX_STEPS": {"env QUARRY_MAX_STEPS", "QUARRY_MAX_STEPS=20"},
		"QUARRY_CPUS":      {"env QUARRY_CPUS", "QUARRY_CPUS=2"},
		"QUARRY_IMAGES":    {"env QUARRY_IMAGES", "auto, kitty"},
		"QUARRY_CONFIRM":   {"env QUARRY_CONFIRM", "true or false"},
	}
	for name, want := range cases {
		_, err := merge(Overrides{}, env("XDG_CONFIG_HOME", t.TempDir(), name, "bogus"))
		if err == nil {
			t.Fatalf("%s=bogus accepted", name)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: message lacks %q:\n%v", name, w, err)
			}
		}
	}
}

func TestAPIKeyEnvHoldingAKeyIsNotEchoed(t *testing.T) {
	path := writeFile(t, "api_key_env = \"sk-proj-abcdef123456\"\n")
	_, err := merge(Overrides{ConfigPath: path}, env())
	if err == nil || strings.Contains(err.Error(), "abcdef123456") || !strings.Contains(err.Error(), "not the key itself") {
		t.Fatalf("err %v", err)
	}
}

func TestKeyLines(t *testing.T) {
	text := "a = 1\n[profiles.\"x.y\"]\nb.c = 2\ns = \"\"\"\nz = 3\n\"\"\"\n[prices]\n\"gpt-4.1\" = {input=1}\n"
	got := keyLines(text)
	want := map[string]int{"a": 1, "profiles\x1fx.y": 2, "profiles\x1fx.y\x1fb\x1fc": 3, "prices\x1fgpt-4.1": 8}
	for k, l := range want {
		if got[k] != l {
			t.Errorf("%q: line %d, want %d", k, got[k], l)
		}
	}
	if _, ok := got["profiles\x1fx.y\x1fz"]; ok {
		t.Error("a line inside a multi-line string was taken for a key")
	}
}

func TestTemplateParsesAndEveryExampleIsValid(t *testing.T) {
	tmpl := Template()
	var raw map[string]any
	if _, err := toml.Decode(tmpl, &raw); err != nil {
		t.Fatalf("template: %v", err)
	}
	if len(raw) != 0 {
		t.Fatalf("template sets %v; everything should be commented out", raw)
	}
	// Uncomment every line: the result must load without any problem.
	var b strings.Builder
	for _, line := range strings.Split(tmpl, "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok && regexp.MustCompile(`^(\[|[a-z_]+ = )`).MatchString(rest) {
			b.WriteString(rest + "\n")
		}
	}
	path := writeFile(t, b.String())
	c, err := merge(Overrides{ConfigPath: path}, env())
	if err != nil {
		t.Fatalf("uncommented template: %v\n%s", err, b.String())
	}
	if c.Profile != "local" {
		t.Fatalf("profile %q", c.Profile)
	}
	for _, s := range settings {
		if !strings.Contains(tmpl, s.Help[:20]) {
			t.Errorf("template lacks the help of %s", s.Key)
		}
	}
}

// What the template says of each setting holds: a value not marked as an
// example is the default (uncommented alone, it changes nothing), and one
// marked as an example is not.
func TestTemplateShowsDefaults(t *testing.T) {
	lines := strings.Split(Template(), "\n")
	def := defaults()
	for _, s := range settings {
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "# "+s.Key+" = ") {
				at = i
				break
			}
		}
		if at < 0 {
			t.Errorf("%s is not in the template", s.Key)
			continue
		}
		example := at > 0 && strings.HasSuffix(lines[at-1], "An example:")
		c, err := merge(Overrides{ConfigPath: writeFile(t, strings.TrimPrefix(lines[at], "# ")+"\n")}, env())
		if err != nil {
			t.Errorf("%s: the template's line does not load: %v", s.Key, err)
			continue
		}
		if same := s.get(c) == s.get(def); same == example && s.defaultText == "" {
			t.Errorf("%s: marked as an example %v, but the value is the default %v (%q)", s.Key, example, same, lines[at])
		}
	}
}
