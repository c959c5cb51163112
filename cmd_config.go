package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/config"
)

// addConfigFlags declares the flags that feed config.Overrides, for the chat,
// the headless mode and the sub-commands that load the configuration (config,
// doctor), so their output shows what a chat with the same flags would use.
func addConfigFlags(fs *flag.FlagSet, o *config.Overrides) {
	fs.StringVar(&o.ConfigPath, "config", "", "config file (default $XDG_CONFIG_HOME/quarry/config.toml)")
	fs.StringVar(&o.Profile, "profile", "", "provider profile from the config file")
	fs.StringVar(&o.Model, "model", "", "model name (env QUARRY_MODEL)")
	fs.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible API base URL (env OPENAI_BASE_URL)")
	fs.StringVar(&o.ToolMode, "tool-mode", "", "auto, native or markdown")
	fs.StringVar(&o.OutputDir, "output-dir", "", "folder for figures and files (default ./quarry-output/<session>)")
	fs.StringVar(&o.Images, "images", "", "figures: auto, kitty, iterm, sixel, blocks or off")
	fs.DurationVar(&o.Timeout, "timeout", 0, "per-cell time limit, e.g. 3s or 2m (default 2m)")
	fs.IntVar(&o.MaxSteps, "max-steps", 0, "most cells per answer (default 20)")
	fs.BoolVar(&o.Confirm, "confirm", false, "show each cell and wait for y/n/e before it runs")
}

const configUsage = `Usage:
  quarry config [-v] [flags]        show the effective settings and where each came from
  quarry config init [--config F]   write a commented config file (never overwrites)

Settings (file key, environment, flag):
`

func cmdConfig(args []string, stdout, stderr io.Writer) int {
	doInit := len(args) > 0 && args[0] == "init"
	if doInit {
		args = args[1:]
	}
	var o config.Overrides
	var verbose bool
	fs := flag.NewFlagSet("quarry config", flag.ContinueOnError)
	addConfigFlags(fs, &o)
	fs.BoolVar(&verbose, "v", false, "show each setting's help")
	fs.Usage = func() { printConfigUsage(fs.Output(), fs) }
	if ok, code := parseCommand(fs, args, 0, stdout, stderr); !ok {
		return code
	}
	if doInit {
		return configInit(o, stdout, stderr)
	}
	return configShow(o, verbose, stdout, stderr)
}

func printConfigUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, configUsage)
	settings := config.Settings()
	keyW, envW := 0, 0
	for _, s := range settings {
		keyW = max(keyW, len(s.Key))
		envW = max(envW, len(strings.Join(s.Env, ", ")))
	}
	// Help text goes on its own indented line: in a column it would widen
	// every row.
	for _, s := range settings {
		flagName := ""
		if s.Flag != "" {
			flagName = "--" + s.Flag
		}
		row := fmt.Sprintf("  %-*s  %-*s  %s", keyW, s.Key, envW, strings.Join(s.Env, ", "), flagName)
		fmt.Fprintln(w, strings.TrimRight(row, " "))
		fmt.Fprintf(w, "  %*s  %s\n", keyW, "", s.Help)
	}
	fmt.Fprintln(w, "\nAlso: QUARRY_CONFIG (the file), QUARRY_PROFILE, QUARRY_OLLAMA_HOST (where to look for Ollama).")
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
}

func configInit(o config.Overrides, stdout, stderr io.Writer) int {
	path, _, _ := config.Path(o)
	if err := config.WriteTemplate(path); err != nil {
		fmt.Fprintf(stderr, "quarry config init: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "Wrote %s\nEvery setting in it is commented out at its default: remove the \"# \" to change one.\n", path)
	return exitOK
}

func configShow(o config.Overrides, verbose bool, stdout, stderr io.Writer) int {
	c, err := config.Merge(o)
	if err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		return exitFailed
	}
	status := exitOK
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var notes []string
	if err := config.ResolveKey(ctx, &c); err != nil {
		fmt.Fprintf(stderr, "quarry: %v\n", err)
		status = exitFailed
	} else if r, notice, err := config.Resolve(ctx, c); err != nil {
		notes = append(notes, err.Error())
	} else {
		c = r
		if notice != "" {
			notes = append(notes, notice)
		}
	}

	fmt.Fprintln(stdout, "Effective settings (defaults < file < environment < flags); keys are never shown.")
	printSettings(stdout, config.Describe(c), verbose)
	for _, n := range notes {
		fmt.Fprintf(stdout, "\nnote: %s\n", n)
	}
	return status
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
