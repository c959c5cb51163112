package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/suggest"
)

// configCmd is `quarry config [-v]`, `quarry config init` and `quarry
// config check`.
func (a *app) configCmd() *cobra.Command {
	var o config.Overrides
	var verbose bool
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each came from",
		Long:  configLong(),
		Args:  unknownCommand,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.configShow(o, verbose)
		},
	}
	addConfigFlags(c.Flags(), &o)
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "show each setting's help")
	c.Flags().SortFlags = false

	var io config.Overrides
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented config file (never overwrites)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			path, _, _ := config.Path(io)
			if err := config.WriteTemplate(path); err != nil {
				return fmt.Errorf("config init: %w", err)
			}
			fmt.Fprintf(a.text, "Wrote %s\nEvery setting in it is commented out, at its default or at an example it says is one: remove the \"# \" to set one.\n", path)
			return nil
		},
	}
	initCmd.Flags().StringVar(&io.ConfigPath, "config", "", "where to write it (default $XDG_CONFIG_HOME/quarry/config.toml)")
	c.AddCommand(initCmd, a.configCheckCmd())
	return c
}

// configCheckCmd is `quarry config check`: whether the chat would find a
// model, by resolving the configuration as the launch does (the key, the
// Ollama probe). make run tries it to choose between the chat and the demo.
func (a *app) configCheckCmd() *cobra.Command {
	var o config.Overrides
	c := &cobra.Command{
		Use:   "check",
		Short: "Say whether a model is set up (exit 0) or not (exit 2), as the chat would find it",
		Long: `Resolves the configuration as quarry does before a chat: the key (running
api_key_cmd when set) and, with no key, the probe for a local Ollama. It
prints the model and endpoint a chat would use and exits 0, or says what is
missing and how to set it up and exits 2. Nothing is sent to the model.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := config.Load(o)
			if err != nil {
				return inputError{err}
			}
			mask := cfg.Masker()
			ctx, cancel := context.WithTimeout(c.Context(), 20*time.Second)
			defer cancel()
			cfg, notice, err := config.Resolve(ctx, cfg)
			if err != nil {
				return inputError{maskedErr(mask, err)}
			}
			fmt.Fprintf(a.text, "model %s at %s (%s)\n", cfg.Model, cfg.Endpoint(), cfg.Source("model"))
			if notice != "" {
				fmt.Fprintf(a.text, "note: %s\n", cfg.Masker().MaskError(notice))
			}
			return nil
		},
	}
	addConfigFlags(c.Flags(), &o)
	return c
}

// configLong lists every setting from the one settings table, with its
// file key, environment variables and flag; the help text goes on its own
// line, since in a column it would widen every row.
func configLong() string {
	var b strings.Builder
	b.WriteString(`Shows the effective settings (defaults < file < environment < flags) and
where each came from; keys are never shown. quarry config init writes a
commented config file.

Settings (file key, environment, flag):
`)
	settings := config.Settings()
	keyW, envW := 0, 0
	for _, s := range settings {
		keyW = max(keyW, len(s.Key))
		envW = max(envW, len(strings.Join(s.Env, ", ")))
	}
	for _, s := range settings {
		flagName := ""
		if s.Flag != "" {
			flagName = "--" + s.Flag
		}
		row := fmt.Sprintf("  %-*s  %-*s  %s", keyW, s.Key, envW, strings.Join(s.Env, ", "), flagName)
		fmt.Fprintln(&b, strings.TrimRight(row, " "))
		indent := strings.Repeat(" ", keyW+4)
		for _, l := range wrapWords(s.Help, 78-len(indent)) {
			fmt.Fprintln(&b, indent+l)
		}
	}
	b.WriteString("\nAlso:\n")
	w := 0
	for _, e := range otherEnv {
		w = max(w, len(e.name))
	}
	for _, e := range otherEnv {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, e.name, e.help)
	}
	return b.String()
}

func (a *app) configShow(o config.Overrides, verbose bool) error {
	c, err := config.Merge(o)
	if err != nil {
		return err
	}
	var status error
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var notes []string
	if err := config.ResolveKey(ctx, &c); err != nil {
		status = err
	} else if r, notice, err := config.Resolve(ctx, c); err != nil {
		notes = append(notes, err.Error())
	} else {
		c = r
		if notice != "" {
			notes = append(notes, notice)
		}
	}
	mask := c.Masker()
	fmt.Fprintln(a.text, "Effective settings (defaults < file < environment < flags); keys are never shown.")
	printSettings(a.text, config.Describe(c), verbose)
	for _, n := range notes {
		fmt.Fprintf(a.text, "\nnote: %s\n", mask.MaskError(n))
	}
	if status != nil {
		return maskedErr(mask, status)
	}
	return nil
}

// printSettings aligns key, value and source; a long value (the price list)
// keeps its own width rather than stretching every row.
func printSettings(w io.Writer, lines []config.Line, verbose bool) {
	keyW, valW := 0, 0
	for _, l := range lines {
		keyW = max(keyW, len(l.Key))
		if n := utf8.RuneCountInString(l.Value); n <= 48 {
			valW = max(valW, n)
		}
	}
	for _, l := range lines {
		pad := max(valW-utf8.RuneCountInString(l.Value), 0)
		line := fmt.Sprintf("  %-*s  %s%s  %s", keyW, l.Key, l.Value, strings.Repeat(" ", pad), l.Source)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if verbose {
			fmt.Fprintf(w, "  %*s  %s\n", keyW, "", l.Help)
		}
	}
}

// wrapWords breaks text into lines of at most width characters, at spaces.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// unknownCommand is the Args of a command with sub-commands: a word that
// names none of them is a mistake.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		if p := suggest.Phrase(nearCommands(c, args[0]), func(s string) string { return c.CommandPath() + " " + s }); p != "" {
			return usagef(c, "unknown command %q: %s", args[0], p)
		}
		return usagef(c, "unknown command %q", args[0])
	}
	return nil
}
