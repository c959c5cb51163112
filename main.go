// Command quarry is a terminal data-analysis assistant: a chat (or a
// headless run) in which a model writes pandas code that runs in a local,
// networkless Docker sandbox.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/config"
)

// Set by the linker (see .goreleaser.yaml and the Makefile).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// Exit codes shared by every mode.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// cliFlags are the flags of the chat and headless modes.
type cliFlags struct {
	prompt    string
	jsonOut   bool
	quiet     bool
	version   bool
	overrides config.Overrides
	files     []string
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "sandbox":
			return cmdSandbox(args[1:], stdout, stderr)
		case "config":
			return cmdConfig(args[1:], stdout, stderr)
		case "doctor":
			return cmdDoctor(args[1:], stdout, stderr)
		case "version":
			printVersion(stdout)
			return exitOK
		}
	}
	f, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "quarry: %v\nRun 'quarry --help' for usage.\n", err)
		return exitUsage
	}
	if f.version {
		printVersion(stdout)
		return exitOK
	}
	if f.prompt != "" {
		return runHeadless(f, stdin, stdout, stderr)
	}
	return runChat(f, stderr)
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "quarry %s (commit %s, built %s)\n", version, commit, date)
}

const usageText = `quarry: ask questions about CSV and Excel files; a model writes pandas code
that runs in a local, networkless Docker sandbox.

Usage:
  quarry [flags] [FILE...]                 open the chat with FILEs attached
  quarry -p PROMPT [flags] [FILE...]       answer one prompt and exit (headless)
  quarry sandbox build                     build the sandbox image
  quarry config [init]                     show the effective settings, or write a config file
  quarry doctor                            check Docker, the image, the model and the terminal
  quarry --version

Flags:
`

func parseFlags(args []string, stderr io.Writer) (cliFlags, error) {
	var f cliFlags
	fs := flag.NewFlagSet("quarry", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\nEnvironment: OPENAI_API_KEY, OPENAI_BASE_URL, QUARRY_MODEL, QUARRY_* (see quarry config).\n")
	}
	o := &f.overrides
	fs.StringVar(&f.prompt, "prompt", "", "answer this prompt and exit; - reads it from standard input")
	fs.StringVar(&f.prompt, "p", "", "short for --prompt")
	fs.BoolVar(&f.jsonOut, "json", false, "headless: print one JSON document instead of Markdown")
	fs.BoolVar(&f.quiet, "quiet", false, "headless: no progress on standard error")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
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

	// Flags may follow file names: quarry q1.csv --model x.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return f, err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			f.files = append(f.files, rest[1:]...)
			break
		}
		f.files = append(f.files, rest[0])
		rest = rest[1:]
	}
	if o.Timeout < 0 || (o.Timeout > 0 && o.Timeout < 100*time.Millisecond) {
		return f, fmt.Errorf("--timeout %s is too short: give a duration such as 30s", o.Timeout)
	}
	if o.MaxSteps < 0 {
		return f, fmt.Errorf("--max-steps must be positive")
	}
	if (f.jsonOut || f.quiet) && f.prompt == "" {
		return f, fmt.Errorf("--json and --quiet go with --prompt")
	}
	f.prompt = strings.TrimSpace(f.prompt)
	return f, nil
}
