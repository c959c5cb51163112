package cli

import (
	"fmt"
	"regexp"
	"strings"

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
			out = joinDescription(out)
			_, err = fmt.Fprint(c.OutOrStdout(), out)
			return err
		},
	}
}

var shortFlagRE = regexp.MustCompile(`\\fB--([A-Za-z0-9]) --`)

// joinDescription undoes mango's paragraph after every line of the
// description (man showed each wrapped line as a paragraph of its own):
// lines of one paragraph join, as roff fills them; a blank line of the
// help text stays a paragraph break.
func joinDescription(page string) string {
	const head = ".SH DESCRIPTION\n"
	i := strings.Index(page, head)
	if i < 0 {
		return page
	}
	body := page[i+len(head):]
	end := strings.Index(body, "\n.SH ")
	if end < 0 {
		end = len(body)
	}
	text := strings.ReplaceAll(body[:end], "\n.PP\n.PP\n", "\x00")
	text = strings.ReplaceAll(text, "\n.PP\n", "\n")
	text = strings.ReplaceAll(text, "\x00", "\n.PP\n")
	return page[:i+len(head)] + text + body[end:]
}
