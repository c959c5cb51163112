package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Shared by every command: asked-for help goes to stdout with exit 0, so it
// can be paged; a mistake gets one line on stderr and exit 2, not the whole
// usage, which would bury the line that says what was wrong.

// parseCommand parses args into fs (whose Usage prints to stdout). It
// returns ok=false with the exit status when the caller should stop:
// exitOK after --help, exitUsage after a bad flag or, when maxArgs >= 0,
// more than maxArgs arguments.
func parseCommand(fs *flag.FlagSet, args []string, maxArgs int, stdout, stderr io.Writer) (ok bool, code int) {
	name := fs.Name()
	fs.SetOutput(io.Discard) // errors are reported below, once
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		usage()
		return false, exitOK
	case err != nil:
		return false, usageError(stderr, name, err.Error())
	case maxArgs >= 0 && fs.NArg() > maxArgs:
		return false, usageError(stderr, name, fmt.Sprintf("unexpected argument %q", fs.Arg(maxArgs)))
	}
	return true, exitOK
}

// usageError reports a command-line mistake and returns exitUsage.
func usageError(stderr io.Writer, command, problem string) int {
	fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", command, problem, command)
	return exitUsage
}

// printFlags lists fs's flags GNU-style (--name), the way the docs and the
// messages write them; a one-letter flag that only abbreviates another
// ("short for --prompt") is folded into that flag's line.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	shorts := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, "short for --"); ok && len(f.Name) == 1 {
			shorts[long] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if _, isShort := shorts[strings.TrimPrefix(f.Usage, "short for --")]; isShort && len(f.Name) == 1 {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if s, ok := shorts[f.Name]; ok {
			name = "-" + s + ", " + name
		}
		if kind != "" {
			name += " " + kind
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "  %-26s %s\n", name, usage)
	})
}
