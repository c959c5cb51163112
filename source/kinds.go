package source

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is one kind of database server quarry reaches. The table below is
// the one place a kind is named: its URL schemes, what it is called on
// screen, where its password is looked up, and the code that opens it.
// config (--db, [sources.NAME]), doctor, the session and the chat read it.
type Kind struct {
	Name      string   // as shown: "PostgreSQL"
	Schemes   []string // the URL schemes that select it, lower case
	Example   string   // a URL of the kind, for messages and help
	Passwords string   // where the password comes from when the URL has none
	// Notebook is the SQLAlchemy URL an exported notebook's reader fills
	// in to read the database as the session did: a placeholder.
	Notebook string
	// words are the keys of a key=value connection string of the kind
	// (libpq's "host=db dbname=crm"); a string of them selects it.
	words []string
	open  func(*Kind, Spec) (Source, error) // parses, finds the password; does not connect
	quote func(string) string               // an identifier as the kind's SQL writes it, quoted only when needed
	// dialect tells the model how the kind's SQL names things.
	dialect string
	// find is a query that finds tables by a word in their name, shown to
	// the model when the profile lists only some of them.
	find string
}

var kinds = []*Kind{postgresKind, mysqlKind}

var postgresKind = &Kind{
	Name: "PostgreSQL", Schemes: []string{"postgres", "postgresql"}, Example: "postgres://user@host/db",
	Passwords: "the URL, PGPASSWORD or ~/.pgpass",
	Notebook:  "postgresql://USER@HOST:5432/DBNAME",
	words: []string{"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service",
		"sslmode", "connect_timeout", "application_name", "options"},
	open: parsePostgres, quote: quotePostgres,
	dialect: "PostgreSQL's SQL: quote names with capitals, spaces or accents in double quotes",
	find:    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_name ILIKE '%word%'`,
}

var mysqlKind = &Kind{
	Name: "MariaDB/MySQL", Schemes: []string{"mysql", "mariadb"}, Example: "mysql://user@host/db",
	Passwords: "the URL, the [client] section of ~/.my.cnf or MYSQL_PWD",
	Notebook:  "mysql+pymysql://USER@HOST:3306/DBNAME",
	open:      parseMySQL, quote: quoteMySQL,
	dialect: "MariaDB/MySQL SQL: quote names with spaces or accents in backticks (`Région`); double quotes make text, not names",
	find:    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_name LIKE '%word%'`,
}

// Kinds lists the kinds of database quarry reaches.
func Kinds() []*Kind { return kinds }

// KindOf finds the kind a URL (or key=value string) is of; a scheme no
// kind has is refused naming the kinds there are.
func KindOf(raw string) (*Kind, error) {
	raw = strings.TrimSpace(raw)
	if scheme, _, ok := strings.Cut(raw, "://"); ok {
		scheme = strings.ToLower(scheme)
		for _, k := range kinds {
			for _, s := range k.Schemes {
				if s == scheme {
					return k, nil
				}
			}
		}
		return nil, fmt.Errorf("%s:// is not a kind of database quarry reaches; it reaches %s", clip(scheme, 20), known())
	}
	if key, _, ok := strings.Cut(strings.Fields(raw + " x")[0], "="); ok {
		for _, k := range kinds {
			for _, w := range k.words {
				if w == key {
					return k, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("not a database URL; write one of %s", examples())
}

// KindByScheme is the kind of a URL scheme, as a session record keeps
// it; PostgreSQL for none (records from before there were kinds).
func KindByScheme(scheme string) *Kind {
	for _, k := range kinds {
		if slices.Contains(k.Schemes, scheme) {
			return k
		}
	}
	return postgresKind
}

// isWord says whether s is a key of some kind's key=value strings.
func isWord(s string) bool {
	for _, k := range kinds {
		for _, w := range k.words {
			if w == s {
				return true
			}
		}
	}
	return false
}

// known names the kinds by their schemes: "postgres:// or postgresql://
// (PostgreSQL), mysql:// or mariadb:// (MariaDB/MySQL)".
func known() string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = strings.Join(k.Schemes, ":// or ") + ":// (" + k.Name + ")"
	}
	return strings.Join(parts, ", ")
}

// examples is one URL of each kind, for a message that says what to write.
func examples() string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k.Example
	}
	return strings.Join(parts, " or ")
}

// PasswordPlaces says where each kind's password is looked up:
// "PostgreSQL: the URL, PGPASSWORD or ~/.pgpass; MariaDB/MySQL: …".
func PasswordPlaces() string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k.Name + ": " + k.Passwords
	}
	return strings.Join(parts, "; ")
}

// Examples is one --db value of each kind: "NAME=postgres://user@host/db
// or NAME=mysql://user@host/db".
func Examples() string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = "NAME=" + k.Example
	}
	return strings.Join(parts, " or ")
}
