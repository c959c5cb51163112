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
	promptSet bool // -p was given, even empty: a headless run, never the chat
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
		case "help":
			printUsage(stdout)
			return exitOK
		case "version":
			if len(args) > 1 {
				return usageError(stderr, "quarry version", fmt.Sprintf("unexpected argument %q", args[1]))
			}
			printVersion(stdout)
			return exitOK
		}
	}
	f, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK
	}
	if err != nil {
		return usageError(stderr, "quarry", err.Error())
	}
	if f.version {
		printVersion(stdout)
		return exitOK
	}
	if f.promptSet {
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
  quarry [flags] [FILE...]              open the chat with FILEs attached
  quarry -p PROMPT [flags] [FILE...]    answer one prompt, print the answer and exit
  quarry -p - [flags] [FILE...]         the same, reading the prompt from standard input
  cat data.csv | quarry -p PROMPT       data piped on standard input is attached (stdin.csv)
  quarry sandbox build|status|ref       build the sandbox image, or tell its state or tag
  quarry config [-v]                    show the effective settings and where each came from
  quarry config init                    write a commented config file
  quarry doctor                         check Docker, the image, a sandbox, the model, the terminal
  quarry version                        print version, commit and build date (also --version)
  quarry COMMAND --help                 help on one command

Flags:
`

const usageFooter = `
Environment: OPENAI_API_KEY, OPENAI_BASE_URL, QUARRY_MODEL and QUARRY_* (quarry config --help
lists them). Flags win over the environment, the environment over the config file.

With -p, standard output carries only the answer (Markdown, or JSON with --json);
progress goes to standard error. Exit status: 0 answered; 1 the run failed (model or
sandbox); 2 bad usage or input, found before anything starts; 130 interrupted.
`

func printUsage(w io.Writer) {
	fmt.Fprint(w, usageText)
	printFlags(w, newMainFlags(&cliFlags{}))
	fmt.Fprint(w, usageFooter)
}

// newMainFlags declares the flags of the chat and headless modes into f.
func newMainFlags(f *cliFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("quarry", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports errors once, and prints help to stdout
	fs.Usage = func() {}
	o := &f.overrides
	fs.StringVar(&f.prompt, "prompt", "", "answer this prompt and exit; - reads it from standard input")
	fs.StringVar(&f.prompt, "p", "", "short for --prompt")
	fs.BoolVar(&f.jsonOut, "json", false, "headless: print one JSON document instead of Markdown")
	fs.BoolVar(&f.quiet, "quiet", false, "headless: no progress on standard error")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	addConfigFlags(fs, o)
	return fs
}

func parseFlags(args []string) (cliFlags, error) {
	var f cliFlags
	fs := newMainFlags(&f)
	o := &f.overrides
	// Flags may follow file names: quarry q1.csv --model x.
	// After "--" everything is a file, even a name that starts with a dash.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return f, err
		}
		if n := len(rest) - fs.NArg(); n > 0 && rest[n-1] == "--" {
			f.files = append(f.files, fs.Args()...)
			break
		}
		rest = fs.Args()
		if len(rest) == 0 {
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
	fs.Visit(func(fl *flag.Flag) { f.promptSet = f.promptSet || fl.Name == "p" || fl.Name == "prompt" })
	if (f.jsonOut || f.quiet) && !f.promptSet {
		return f, fmt.Errorf("--json and --quiet go with --prompt")
	}
	f.prompt = strings.TrimSpace(f.prompt)
	return f, nil
}
