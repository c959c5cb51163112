package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

const sandboxUsage = `Usage:
  quarry sandbox build [--via auto|dockerfile|debootstrap] [--force]
                        build the sandbox image (progress on stderr, tag on stdout)
  quarry sandbox status  print the image tag for this recipe and whether it is built
  quarry sandbox ref     print the image tag for this recipe
`

// cmdSandbox runs `quarry sandbox ...`.
func cmdSandbox(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sandboxUsage)
		return exitUsage
	}
	switch args[0] {
	case "ref", "status":
		fs := flag.NewFlagSet("quarry sandbox "+args[0], flag.ContinueOnError)
		fs.Usage = func() { fmt.Fprint(fs.Output(), sandboxUsage) }
		if ok, code := parseCommand(fs, args[1:], 0, stdout, stderr); !ok {
			return code
		}
		if args[0] == "status" {
			return cmdSandboxStatus(stdout, stderr)
		}
		fmt.Fprintln(stdout, sandbox.ImageRef())
		return exitOK
	case "build":
		return cmdSandboxBuild(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, sandboxUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "quarry sandbox: unknown command %q\n%s", args[0], sandboxUsage)
	return exitUsage
}

func cmdSandboxBuild(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quarry sandbox build", flag.ContinueOnError)
	via := fs.String("via", "auto", "auto (Dockerfile when debian:forky-slim is in the engine, else debootstrap), dockerfile or debootstrap")
	force := fs.Bool("force", false, "rebuild even when the image for this recipe exists")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: quarry sandbox build [flags]\n\nBuilds the sandbox image: progress on stderr, the tag on stdout.\n\nFlags:\n")
		printFlags(fs.Output(), fs)
	}
	if ok, code := parseCommand(fs, args, 0, stdout, stderr); !ok {
		return code
	}
	switch sandbox.BuildPath(*via) {
	case sandbox.BuildAuto, sandbox.BuildDockerfile, sandbox.BuildDebootstrap:
	default:
		fmt.Fprintf(stderr, "quarry sandbox build: --via %q: use auto, dockerfile or debootstrap\n", *via)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := sandbox.Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "quarry sandbox build: %v\n", err)
		return exitFailed
	}
	defer e.Close()
	ref := sandbox.ImageRef()
	if !*force {
		ok, err := e.ImagePresent(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "quarry sandbox build: %v\n", err)
			return exitFailed
		}
		if ok {
			fmt.Fprintf(stderr, "%s is already built (--force rebuilds it)\n", ref)
			fmt.Fprintln(stdout, ref)
			return exitOK
		}
	}
	start := time.Now()
	if err := e.BuildImageWith(ctx, stderr, sandbox.BuildPath(*via)); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "quarry sandbox build: interrupted after %s\n", time.Since(start).Round(time.Second))
			return exitInterrupted
		}
		fmt.Fprintf(stderr, "quarry sandbox build: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, ref)
	return exitOK
}

func cmdSandboxStatus(stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ref := sandbox.ImageRef()
	e, err := sandbox.Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "quarry sandbox status: %v\n", err)
		return exitFailed
	}
	defer e.Close()
	ok, err := e.ImagePresent(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "quarry sandbox status: %v\n", err)
		return exitFailed
	}
	state := "built"
	if !ok {
		state = "missing: run `quarry sandbox build` (as root for the offline build) or `make image`"
	}
	fmt.Fprintf(stdout, "%s  %s\nengine %s (API %s) at %s\n", ref, state, e.Version(), e.APIVersion(), e.Host())
	if !ok {
		return exitFailed
	}
	pkgs, err := e.ImagePackages(ctx, ref)
	if err != nil {
		fmt.Fprintf(stderr, "quarry sandbox status: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "packages (%d in all; the recipe's):\n", len(pkgs))
	for _, p := range sandbox.RecipePackages(pkgs) {
		fmt.Fprintf(stdout, "  %-28s %s\n", p.Name, p.Version)
	}
	return exitOK
}
