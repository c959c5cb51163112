package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// versionCmd is `quarry version`, the same as --version.
func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and build date (also --version)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintf(a.stdout, "quarry %s\n", a.build)
			return nil
		},
	}
}
