package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/quarry-cli/quarry/config"
)

// The docs' tables of flags, settings and environment variables are the
// program's own: each test fails when a flag, setting or variable is added,
// renamed or removed on one side only.

// docTable returns the rows of the first Markdown table after heading in
// a file under docs/ (or the README), each a slice of its cells.
func docTable(t *testing.T, file, heading string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", file, heading)
	}
	var rows [][]string
	started := false
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		l = strings.ReplaceAll(l, `\|`, "\x00")
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	return rows[1:] // the header
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	flagName = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)`)
)

func codes(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDocsListEveryFlag(t *testing.T) {
	root := newApp(Build{}, nil, nil, nil).rootCommand()
	root.InitDefaultCompletionCmd()
	var settingsFlags []string
	fs := pflag.NewFlagSet("settings", pflag.ContinueOnError)
	addConfigFlags(fs, &config.Overrides{})
	fs.VisitAll(func(f *pflag.Flag) { settingsFlags = append(settingsFlags, f.Name) })

	documented := map[string][]string{} // command path -> flags the docs name
	for _, row := range docTable(t, "docs/usage.md", "### Every command's flags") {
		var flags []string
		if strings.Contains(row[1], "the settings flags") {
			flags = append(flags, settingsFlags...)
		}
		for _, c := range codes(row[1]) {
			if m := flagName.FindStringSubmatch(c); m != nil {
				flags = append(flags, m[1])
			}
		}
		for _, cmd := range codes(row[0]) {
			documented[cmd] = append(documented[cmd], flags...)
		}
	}
	program := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" {
				program[c.CommandPath()] = append(program[c.CommandPath()], f.Name, f.Shorthand)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for cmd, flags := range program {
		for i := 0; i < len(flags); i += 2 {
			if !slices.Contains(documented[cmd], flags[i]) {
				t.Errorf("docs/usage.md's flags table lacks %s --%s", cmd, flags[i])
			}
		}
	}
	for cmd, flags := range documented {
		have, ok := program[cmd]
		if !ok {
			t.Errorf("docs/usage.md's flags table names %s, which has no flags", cmd)
			continue
		}
		for _, f := range flags {
			if !slices.Contains(have, f) {
				t.Errorf("docs/usage.md's flags table names %s %s, which it does not have", cmd, dashed(f))
			}
		}
	}
}

func TestDocsListEverySetting(t *testing.T) {
	rows := map[string][]string{}
	for _, row := range docTable(t, "docs/configuration.md", "## Settings") {
		rows[strings.Trim(row[0], "`")] = row
	}
	for _, s := range config.Settings() {
		row, ok := rows[s.Key]
		if !ok {
			t.Errorf("configuration.md's settings table lacks %s", s.Key)
			continue
		}
		delete(rows, s.Key)
		if env := codes(row[3]); !slices.Equal(env, s.Env) {
			t.Errorf("%s: the table says environment %q, the program %q", s.Key, env, s.Env)
		}
		flag := ""
		if f := codes(row[4]); len(f) > 0 {
			flag = strings.TrimPrefix(f[0], "--")
		}
		if flag != s.Flag {
			t.Errorf("%s: the table says flag %q, the program %q", s.Key, flag, s.Flag)
		}
	}
	for _, extra := range []string{"profile", "[prices]", "[sources.NAME]"} { // no setting of their own
		delete(rows, extra)
	}
	for k := range rows {
		t.Errorf("configuration.md's settings table has %s, which is no setting", k)
	}
}

// quarryEnv finds the names of the QUARRY_ variables in the program's
// source (tests left out).
var quarryEnv = regexp.MustCompile(`"(QUARRY_[A-Z0-9_]+)"`)

func TestDocsListEveryEnvironmentVariable(t *testing.T) {
	documented := map[string]bool{}
	for _, row := range docTable(t, "docs/configuration.md", "## Environment variables") {
		for _, v := range codes(row[0]) {
			documented[v] = true
		}
	}
	want := map[string]string{}
	for _, s := range config.Settings() {
		for _, e := range s.Env {
			want[e] = "setting " + s.Key
		}
	}
	for _, e := range otherEnv {
		want[e.name] = "quarry config --help"
	}
	filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "test/") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, m := range quarryEnv.FindAllStringSubmatch(string(b), -1) {
			if _, ok := want[m[1]]; !ok {
				want[m[1]] = p
			}
		}
		return nil
	})
	var names []string
	for v := range want {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if !documented[v] {
			t.Errorf("configuration.md's environment table lacks %s (%s)", v, want[v])
		}
	}
	help := configLong()
	for v := range documented {
		if strings.HasPrefix(v, "QUARRY_") && want[v] == "" {
			t.Errorf("configuration.md's environment table has %s, which quarry does not read", v)
		}
		if strings.HasPrefix(v, "QUARRY_") && !strings.Contains(help, v) {
			t.Errorf("quarry config --help does not list %s", v)
		}
	}
}

func dashed(f string) string {
	if len(f) == 1 {
		return "-" + f
	}
	return "--" + f
}
