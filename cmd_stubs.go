package main

import (
	"fmt"
	"io"
)

// Placeholders until each owner lands its command file.

func cmdSandbox(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "quarry sandbox: not implemented yet")
	return exitFailed
}

func cmdConfig(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "quarry config: not implemented yet")
	return exitFailed
}

func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "quarry doctor: not implemented yet")
	return exitFailed
}

func runHeadless(f cliFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "quarry --prompt: not implemented yet")
	return exitFailed
}

func runChat(f cliFlags, stderr io.Writer) int {
	fmt.Fprintln(stderr, "quarry chat: not implemented yet")
	return exitFailed
}
