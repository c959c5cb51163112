package source

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Spec names a source and how to reach it, as the user wrote it.
type Spec struct {
	Name string
	URL  string // a URL of one of the kinds (or libpq key=value words); may hold a password
}

// nameRE is the one rule for a source's name: what sql(db=NAME) takes,
// --db NAME=URL and [sources.NAME] accept.
var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-]{0,62}$`)

// CheckName says whether name can be a source's name (sql(db=NAME)).
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("source name %q: use ASCII letters, digits, '_' or '-', at most 63, starting with a letter or '_'", name)
	}
	return nil
}

// ParseFlag reads a --db value: NAME=URL, or a URL alone, whose database
// name becomes the source's name. The URL must be of a kind quarry knows.
// Errors never quote a password.
func ParseFlag(arg string) (Spec, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return Spec{}, fmt.Errorf("--db is empty: give NAME=URL (%s)", examples())
	}
	spec := Spec{URL: arg}
	if i := strings.Index(arg, "="); i > 0 && nameRE.MatchString(arg[:i]) {
		rest := arg[i+1:]
		if strings.Contains(rest, "://") || strings.Contains(rest, "=") && !isWord(arg[:i]) {
			spec = Spec{Name: arg[:i], URL: rest}
		}
	}
	if _, err := KindOf(spec.URL); err != nil {
		return Spec{}, fmt.Errorf("--db %s: %w", maskSpec(arg), err)
	}
	if spec.Name == "" {
		spec.Name = NameFor(spec.URL)
	}
	if spec.Name == "" {
		return Spec{}, fmt.Errorf("--db %s: no database name to call the source by; write --db NAME=URL", maskSpec(arg))
	}
	return spec, nil
}

// NameFor is the database a URL or key=value string names, made into a
// source name ("sales-2026" stays, "my db" becomes "my_db"); empty when
// it names none.
func NameFor(raw string) string {
	var db string
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		db = strings.TrimPrefix(u.Path, "/")
		if db == "" {
			db = u.Query().Get("dbname")
		}
	} else {
		for _, w := range strings.Fields(raw) {
			if k, v, ok := strings.Cut(w, "="); ok && k == "dbname" {
				db = strings.Trim(v, "'")
			}
		}
	}
	db = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, db)
	if db != "" && db[0] >= '0' && db[0] <= '9' {
		db = "db_" + db
	}
	if !nameRE.MatchString(db) {
		return ""
	}
	return db
}
