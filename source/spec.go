package source

import (
	"fmt"
	"regexp"
)

// Spec names a source and how to reach it, as the user wrote it.
type Spec struct {
	Name string
	URL  string // postgres://… or libpq key=value words; may hold a password
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-]{0,62}$`)

// CheckName says whether name can be a source's name (sql(db=NAME)).
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("source name %q: use letters, digits, '_' or '-', starting with a letter", name)
	}
	return nil
}
