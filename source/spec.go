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
	URL  string // postgres://… or libpq key=value words; may hold a password
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-]{0,62}$`)

// ParseSpec reads a --db value: NAME=URL, or a URL alone, whose database
// name becomes the source's name.
func ParseSpec(arg string) (Spec, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return Spec{}, fmt.Errorf("--db: empty; give NAME=postgres://user@host/db or a URL")
	}
	if i := strings.Index(arg, "="); i > 0 && !strings.Contains(arg[:i], "://") && !strings.ContainsAny(arg[:i], " ") && nameRE.MatchString(arg[:i]) && (strings.Contains(arg[i+1:], "://") || strings.Contains(arg[i+1:], "=")) {
		return Spec{Name: arg[:i], URL: arg[i+1:]}, nil
	}
	name := dbName(arg)
	if name == "" {
		return Spec{}, fmt.Errorf("--db %s: no database name to call the source by; write --db NAME=URL", maskSpec(arg))
	}
	return Spec{Name: name, URL: arg}, nil
}

// dbName is the database a URL or key=value string names, made into a
// source name ("sales-2026" stays, "my db" becomes "my_db").
func dbName(raw string) string {
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

// CheckName says whether name can be a source's name (sql(db=NAME)).
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("source name %q: use letters, digits, '_' or '-', starting with a letter", name)
	}
	return nil
}
