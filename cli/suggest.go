package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/quarry-cli/quarry/suggest"
)

// flagError is the root's flag error function: a usage error, with the
// nearest flag the command has when the one given is unknown.
func flagError(c *cobra.Command, err error) error {
	if p := flagSuggestion(c, err.Error()); p != "" {
		err = fmt.Errorf("%w: %s", err, p)
	}
	return usageError{cmd: c.CommandPath(), err: err}
}

// flagSuggestion reads pflag's "unknown flag: --modle" and says which of
// c's flags it is nearest, or "".
func flagSuggestion(c *cobra.Command, msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return ""
	}
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return suggest.Phrase(suggest.Nearest(name, names, c.SuggestionsMinimumDistance), func(s string) string { return "--" + s })
}

// commandSuggestion refuses an argument of c that is no file but is near
// the name of one of c's commands (quarry sesions), so a typo does not
// read as a missing file.
func commandSuggestion(c *cobra.Command, args []string) error {
	for _, a := range args {
		if strings.ContainsRune(a, os.PathSeparator) || strings.HasPrefix(a, "-") { // no command starts with "-" (quarry -- -p names a file)
			continue
		}
		if _, err := os.Stat(a); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if near := nearCommands(c, a); len(near) > 0 {
			return usagef(c, "%s is no file and no command: %s", a,
				suggest.Phrase(near, func(s string) string { return c.CommandPath() + " " + s }))
		}
	}
	return nil
}

// nearCommands are c's commands nearest name, by cobra's distance setting
// (which cobra itself applies only to commands that take no files); help
// among them, which cobra leaves out of the available ones.
func nearCommands(c *cobra.Command, name string) []string {
	names := []string{"help"}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return suggest.Nearest(name, names, c.SuggestionsMinimumDistance)
}
