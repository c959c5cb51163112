package config

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/quarry-cli/quarry/secret"
	"github.com/quarry-cli/quarry/source"
)

// fileValue is one setting found in the file.
type fileValue struct {
	v    any
	line int
}

// fileLayer is what the top of the file, or one profile, sets.
type fileLayer struct {
	values     map[string]fileValue
	prices     map[string]Price
	pricesLine int
	sources    map[string]string
	dask       daskLayer
}

// fileDoc is a checked config file.
type fileDoc struct {
	path        string
	profile     string // profile = "..." at the top
	profileLine int
	top         fileLayer
	profiles    map[string]fileLayer
}

func (d *fileDoc) profileNames() []string {
	names := make([]string, 0, len(d.profiles))
	for n := range d.profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// keysNeverInFile are names people try for the key itself.
var keysNeverInFile = map[string]bool{"api_key": true, "key": true, "openai_api_key": true, "apikey": true, "token": true}

const maxFileProblems = 10

// readFile parses and checks the config file at path. Every problem found
// is reported (up to a cap), each with its line and fix.
func readFile(path string) (*fileDoc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problem: "cannot read the config file: " + errors.Unwrap(err).Error(),
			Fix: "check the path and its permissions, or point --config / QUARRY_CONFIG elsewhere"}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, syntaxError(path, err, keyLines(string(data)))
	}
	c := checker{path: path, lines: keyLines(string(data))}
	doc := &fileDoc{path: path, profiles: map[string]fileLayer{}}
	doc.top = c.layer(raw, nil, true)
	if v, ok := raw["profile"]; ok {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			doc.profile, doc.profileLine = strings.TrimSpace(s), c.line("profile")
		} else if _, table := v.(map[string]any); table {
			c.add("profile", "[profile.NAME] is not a profile table", "profile tables are plural: [profiles.NAME]; profile = \"NAME\" chooses one")
		} else {
			c.add("profile", fmt.Sprintf("profile must be a profile name in quotes, but it is %s", tomlType(v)), `profile = "work"`)
		}
	}
	if v, ok := raw["profiles"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			c.add("profiles", "profiles must be tables such as [profiles.work]", "write each profile as a table:\n  [profiles.work]\n  model = \"gpt-4.1\"")
		}
		for name, p := range m {
			pm, ok := p.(map[string]any)
			if !ok {
				c.add("profiles\x1f"+name, fmt.Sprintf("profile %q must be a table, but it is %s", name, tomlType(p)),
					fmt.Sprintf("write it as a table: [profiles.%s] followed by its settings", name))
				continue
			}
			doc.profiles[name] = c.layer(pm, []string{"profiles", name}, false)
		}
	}
	if len(c.problems) > 0 {
		sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
		if len(c.problems) > maxFileProblems {
			c.problems = c.problems[:maxFileProblems]
		}
		errs := make([]error, len(c.problems))
		for i, p := range c.problems {
			errs[i] = p
		}
		return nil, errors.Join(errs...)
	}
	return doc, nil
}

func syntaxError(path string, err error, lines map[string]int) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{File: path, Problem: "cannot parse: " + err.Error(), Fix: "check the file's TOML syntax"}
	}
	// Only the message and position: ErrorWithPosition would quote the
	// line, and a pasted key may be on it.
	// The library's LastKey is often the previous key; name the one on the line.
	key := ""
	for k, l := range lines {
		if l == pe.Position.Line && len(k) > len(key) {
			key = k
		}
	}
	e := &Error{File: path, Line: pe.Position.Line, Key: strings.ReplaceAll(key, "\x1f", "."), Problem: "TOML syntax error: " + pe.Message,
		Fix: `check that line: each setting is key = value, strings in double quotes (model = "gpt-4.1"), tables in brackets ([profiles.work])`}
	if strings.Contains(pe.Message, "expected value") || strings.Contains(pe.Message, "bare") {
		e.Fix = `put the value in double quotes, e.g. model = "gpt-4.1"`
	}
	return e
}

// checker collects problems while walking the decoded file.
type checker struct {
	path     string
	lines    map[string]int
	problems []*Error
}

func (c *checker) line(key string) int {
	parts := strings.Split(key, "\x1f")
	for n := len(parts); n > 0; n-- {
		if l, ok := c.lines[strings.Join(parts[:n], "\x1f")]; ok {
			return l
		}
	}
	return 0
}

func (c *checker) add(key, problem, fix string) {
	c.problems = append(c.problems, &Error{File: c.path, Line: c.line(key), Key: strings.ReplaceAll(key, "\x1f", "."), Problem: problem, Fix: fix})
}

// layer checks the settings of the top level (prefix nil) or of a profile.
func (c *checker) layer(m map[string]any, prefix []string, top bool) fileLayer {
	l := fileLayer{values: map[string]fileValue{}}
	join := func(k ...string) string { return strings.Join(append(append([]string{}, prefix...), k...), "\x1f") }
	for k, v := range m {
		key := join(k)
		if s, ok := lookupSetting(k); ok {
			val, problem := s.fromTOML(v)
			if problem != "" {
				c.add(key, problem, s.fix(layerFile))
				continue
			}
			l.values[k] = fileValue{v: val, line: c.line(key)}
			continue
		}
		switch {
		case k == "prices":
			l.prices, l.pricesLine = c.prices(v, key), c.line(key)
		case k == "sources":
			l.sources = c.dbSources(v, key)
		case k == "dask":
			l.dask = c.daskTable(v, key)
		case top && (k == "profile" || k == "profiles"):
			// handled by readFile
		case k == "send_examples":
			c.add(key, "send_examples is replaced by share",
				`use share = "values" (what send_examples = true did) or share = "schema" (names, types and counts only)`)
		case keysNeverInFile[strings.ToLower(k)]:
			c.add(key, "quarry never reads an API key from the config file",
				`remove this line; export OPENAI_API_KEY in your shell, or set api_key_env = "NAME" or api_key_cmd = "pass show openai"`)
		default:
			known := settingKeys()
			known = append(known, "prices", "sources", "dask")
			if top {
				known = append(known, "profile", "profiles")
			}
			fix := "remove it; the settings are: " + strings.Join(known, ", ")
			if near := closest(k, known, 1, true); len(near) > 0 {
				fix = fmt.Sprintf("did you mean %s? (quarry config --help lists every setting)", near[0])
			}
			problem := fmt.Sprintf("unknown setting %q", k)
			if !top {
				problem += fmt.Sprintf(" in profile %q", prefix[len(prefix)-1])
			}
			c.add(key, problem, fix)
		}
	}
	return l
}

func (c *checker) prices(v any, key string) map[string]Price {
	m, ok := v.(map[string]any)
	if !ok {
		c.add(key, fmt.Sprintf("prices must be a table, but it is %s", tomlType(v)), `write [prices."gpt-4.1"] then input = 2.0 and output = 8.0 (dollars per million tokens)`)
		return nil
	}
	out := map[string]Price{}
	for model, pv := range m {
		mkey := key + "\x1f" + model
		pm, ok := pv.(map[string]any)
		if !ok {
			c.add(mkey, fmt.Sprintf("the price of %q must be a table with input and output, but it is %s", model, tomlType(pv)),
				fmt.Sprintf(`write "%s" = { input = 2.0, output = 8.0 } (dollars per million tokens)`, model))
			continue
		}
		var p Price
		good := true
		for field, fv := range pm {
			fkey := mkey + "\x1f" + field
			var f float64
			switch n := fv.(type) {
			case int64:
				f = float64(n)
			case float64:
				f = n
			default:
				good = false
				if _, nested := fv.(map[string]any); nested {
					c.add(fkey, fmt.Sprintf("price table %q has a nested table %q", model, field),
						`quote model names that contain dots: [prices."gpt-4.1"]`)
				} else if field == "input" || field == "output" {
					c.add(fkey, fmt.Sprintf("%s must be a number of dollars per million tokens, but it is %s", field, tomlType(fv)), field+" = 2.5")
				} else {
					c.add(fkey, fmt.Sprintf("unknown price field %q", field), "a price has only input and output (dollars per million tokens)")
				}
				continue
			}
			switch {
			case f < 0:
				good = false
				c.add(fkey, fmt.Sprintf("%s is negative", field), field+" = 2.5")
			case field == "input":
				p.Input = f
			case field == "output":
				p.Output = f
			default:
				good = false
				c.add(fkey, fmt.Sprintf("unknown price field %q", field), "a price has only input and output (dollars per million tokens)")
			}
		}
		if good {
			out[model] = p
		}
	}
	return out
}

// keyLines maps each key path (joined with \x1f) to the line that defines
// it. The TOML library keeps positions private, so this small scanner finds
// them; a key it cannot place is reported without a line.
func keyLines(text string) map[string]int {
	out := map[string]int{}
	record := func(path []string, n int) {
		for i := 1; i <= len(path); i++ {
			k := strings.Join(path[:i], "\x1f")
			if _, seen := out[k]; !seen {
				out[k] = n
			}
		}
	}
	var table []string
	inMulti := ""
	for i, line := range strings.Split(text, "\n") {
		n, t := i+1, strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Count(t, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			inner := strings.TrimLeft(t, "[")
			if end := strings.LastIndex(inner, "]"); end >= 0 {
				if path, ok := parseKeyPath(strings.TrimRight(inner[:end], "]")); ok {
					table = path
					record(path, n)
				}
			}
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			continue
		}
		path, ok := parseKeyPath(t[:eq])
		if !ok {
			continue
		}
		record(append(append([]string{}, table...), path...), n)
		rest := t[eq+1:]
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(rest, q)%2 == 1 {
				inMulti = q
			}
		}
	}
	return out
}

// parseKeyPath splits a TOML key such as a.b."c.d" into its parts.
func parseKeyPath(s string) ([]string, bool) {
	var parts []string
	s = strings.TrimSpace(s)
	for s != "" {
		var part string
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, false
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			end := strings.IndexAny(s, ". \t")
			if end < 0 {
				end = len(s)
			}
			part, s = s[:end], s[end:]
			for _, r := range part {
				if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
					return nil, false
				}
			}
		}
		if part == "" && len(parts) == 0 && s == "" {
			return nil, false
		}
		parts = append(parts, part)
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if s[0] != '.' {
			return nil, false
		}
		s = strings.TrimSpace(s[1:])
	}
	return parts, len(parts) > 0
}

// dbSources reads [sources.NAME] tables: url = "postgres://…" (a URL of
// one of source's kinds).
func (c *checker) dbSources(v any, key string) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		c.add(key, fmt.Sprintf("sources must be tables, but it is %s", tomlType(v)), `write [sources.sales] then url = "`+source.Kinds()[0].Example+`"`)
		return nil
	}
	out := map[string]string{}
	for name, sv := range m {
		skey := key + "\x1f" + name
		if err := source.CheckName(name); err != nil {
			c.add(skey, err.Error(), "name it so that sql(db=NAME) can: [sources.sales]")
			continue
		}
		sm, ok := sv.(map[string]any)
		if !ok {
			c.add(skey, fmt.Sprintf("source %q must be a table, but it is %s", name, tomlType(sv)), fmt.Sprintf(`write [sources.%s] then url = "%s"`, name, source.Kinds()[0].Example))
			continue
		}
		for k, val := range sm {
			if k != "url" {
				c.add(skey+"\x1f"+k, fmt.Sprintf("unknown key %q in source %q", k, name), `a source has one key: url = "`+source.Kinds()[0].Example+`" (the password in the URL, or where the kind's own client finds it)`)
			}
			_ = val
		}
		u, ok := sm["url"].(string)
		if !ok || strings.TrimSpace(u) == "" {
			c.add(skey, fmt.Sprintf("source %q has no url", name), fmt.Sprintf(`add url = "%s" under [sources.%s]`, source.Kinds()[0].Example, name))
			continue
		}
		if _, err := source.KindOf(u); err != nil {
			c.add(skey+"\x1f"+"url", fmt.Sprintf("source %q: %s", name, secret.New(secret.FromDBURL(u)...).MaskError(err.Error())), "write url = one of "+strings.ReplaceAll(source.Examples(), "NAME=", ""))
			continue
		}
		out[name] = u
	}
	return out
}
