// Command quarry is a terminal data-analysis assistant: a chat (or a
// headless run) in which a model writes pandas code that runs in a local,
// networkless Docker sandbox. The command line lives in package cli.
package main

import (
	"os"

	"github.com/quarry-cli/quarry/cli"
)

// Set by the linker (see .goreleaser.yaml and the Makefile).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	os.Exit(cli.Execute(cli.Build{Version: version, Commit: commit, Date: date}))
}
