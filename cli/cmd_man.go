package cli

import (
	"fmt"

	mango "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// manCmd is `quarry man`: the manual page, in man(1) format, made from the
// commands and flags themselves (quarry man > quarry.1).
func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "Print the manual page (man quarry: quarry man > quarry.1)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			page, err := mango.NewManPage(1, c.Root())
			if err != nil {
				return fmt.Errorf("man page: %w", err)
			}
			_, err = fmt.Fprint(c.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
