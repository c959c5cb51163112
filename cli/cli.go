// Package cli is quarry's command line on cobra, styled by fang: the root
// command (the chat, or a headless run with --prompt), its sub-commands
// (sessions, export, rerun, config, sandbox, doctor, demo, mcp, version,
// completion, man), the flags they
// share, the one launch path both front ends take and the exit statuses.
// Only cli knows exit statuses: the packages below return errors.
//
// Adding a command: one file, cmd_NAME.go, with a func (a *app) NAMECmd()
// *cobra.Command registered in rootCommand; return usagef(...) for a
// mistake (exit 2) and a plain error for a failure (exit 1).
package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
)

// Build is what the linker stamps into the binary.
type Build struct{ Version, Commit, Date string }

func (b Build) String() string {
	return b.Version + " (commit " + b.Commit + ", built " + b.Date + ")"
}

// Execute runs quarry with the process's arguments and standard streams
// and returns the exit status.
func Execute(b Build) int { return run(b, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }

// app is one invocation: its streams and build, shared by the commands.
type app struct {
	build          Build
	stdin          io.Reader
	stdout, stderr io.Writer
	// text and notes are stdout and stderr for a command's own words:
	// wrapped at word boundaries on a terminal (wrap.go). Data (JSON, an
	// archive, a report to pipe) and the front ends use the streams.
	text, notes io.Writer

	// Where the root command goes; tests replace them to see the flags.
	chat     func(ctx context.Context, f *rootFlags) error
	headless func(ctx context.Context, f *rootFlags) error
}

func run(b Build, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(b, stdin, stdout, stderr).execute(args)
}

func newApp(b Build, stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{build: b, stdin: stdin, stdout: stdout, stderr: stderr, text: textWriter(stdout), notes: textWriter(stderr)}
	a.chat, a.headless = a.runChat, a.runHeadless
	return a
}

func (a *app) execute(args []string) (code int) {
	defer a.flushText()
	// The front ends have their own guard, which also removes the sandbox;
	// this one keeps a Go trace from the user in every other command.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.stderr, "quarry: internal error (please report it with the command you ran): %s\n", panicText(nil, r))
			code = exitFailed
		}
	}()
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	// Piped, help is written through a filter that drops the padding fang
	// leaves at line ends; on a terminal it goes straight there, so fang sees
	// the terminal and styles it.
	if isTerminal(a.stdout) {
		root.SetOut(a.stdout)
	} else {
		out := &trimLines{w: a.stdout}
		defer out.flush()
		root.SetOut(out)
	}
	root.SetErr(a.notes)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Args = unknownCommand // "completion tcsh" is a mistake, not a request for help
			c.RunE = func(c *cobra.Command, _ []string) error {
				return usagef(c, "name the shell: bash, zsh, fish or powershell")
			}
			c.SetOut(a.stdout) // scripts go out untouched
			trimmedHelp(c)
		case "man":
			c.SetOut(a.stdout)
			trimmedHelp(c)
		}
	}
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(a.build.String()),
		fang.WithoutManpage(), // cmd_man.go: written to the command's output, not os.Stdout
		fang.WithErrorHandler(a.printError))
	return exitCode(err)
}

// rootCommand is `quarry [FILE...]` with every sub-command.
func (a *app) rootCommand() *cobra.Command {
	root := a.mainCommand()
	root.AddCommand(a.sessionsCmd(), a.exportCmd(), a.rerunCmd(), a.configCmd(), a.sandboxCmd(), a.doctorCmd(), a.demoCmd(), a.mcpCmd(), a.versionCmd(), a.manCmd())
	root.SetVersionTemplate("quarry {{.Version}}\n")
	// Sub-commands inherit it: a bad flag anywhere is a usage error.
	root.SetFlagErrorFunc(flagError)
	return root
}

// flushText writes what the wrapped streams still hold.
func (a *app) flushText() {
	for _, w := range []io.Writer{a.text, a.notes} {
		if f, ok := w.(interface{ Flush() }); ok {
			f.Flush()
		}
	}
}

// trimmedHelp gives c and its commands, whose output is a script or a page
// that goes out untouched, the help of every other command: piped, without
// the padding fang leaves at line ends.
func trimmedHelp(c *cobra.Command) {
	help := func(cmd *cobra.Command, args []string) {
		out := cmd.OutOrStdout()
		if !isTerminal(out) {
			t := &trimLines{w: out}
			cmd.SetOut(t)
			defer func() { t.flush(); cmd.SetOut(out) }()
		}
		cmd.Root().HelpFunc()(cmd, args)
	}
	c.SetHelpFunc(help)
	for _, sub := range c.Commands() {
		sub.SetHelpFunc(help)
	}
}

// note prints one line of quarry's own on stderr (the start's sweep).
func (a *app) note(line string) { fmt.Fprintln(a.notes, line) }
