package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/quarry-cli/quarry/secret"
)

var sourceNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-]{0,62}$`)

// ParseDB reads a --db value: NAME=URL, or a URL alone, whose database
// name becomes the source's name. Errors never quote a password.
func ParseDB(arg string) (name, u string, err error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return "", "", fmt.Errorf("--db is empty: give NAME=postgres://user@host/db or a URL")
	}
	if i := strings.Index(arg, "="); i > 0 && sourceNameRE.MatchString(arg[:i]) &&
		(strings.Contains(arg[i+1:], "://") || strings.Contains(arg[i+1:], "=") && !libpqWords[arg[:i]]) {
		return arg[:i], arg[i+1:], nil
	}
	name = dbName(arg)
	if name == "" {
		m := secret.New(secret.FromDBURL(arg)...)
		return "", "", fmt.Errorf("--db %s: no database name to call the source by; write --db NAME=URL", m.MaskError(arg))
	}
	return name, arg, nil
}

// libpqWords start a key=value connection string (host=db dbname=x),
// which is not NAME=URL.
var libpqWords = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "service": true, "sslmode": true, "connect_timeout": true, "application_name": true, "options": true}

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
	if !sourceNameRE.MatchString(db) {
		return ""
	}
	return db
}
