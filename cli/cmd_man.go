package cli

import (
	"fmt"
	"regexp"

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
			// mango writes a shorthand with the long prefix ("--p --prompt").
			out := shortFlagRE.ReplaceAllString(page.Build(roff.NewDocument()), `\fB-$1, --`)
			_, err = fmt.Fprint(c.OutOrStdout(), out)
			return err
		},
	}
}

var shortFlagRE = regexp.MustCompile(`\\fB--([A-Za-z0-9]) --`)
