package source

import (
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// Text renders the profile for the system prompt. Without examples
// (share = schema) no value of the database goes to the model.
func (p Profile) Text(examples bool) string {
	k := p.kind
	if k == nil {
		k = postgresKind
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- database %q (%s, %d tables and views): query it with sql(\"SELECT …\", db=%q) in %s", p.Name, p.Server, p.Total, p.Name, k.dialect)
	for _, t := range p.Tables {
		facts := []string{t.Kind}
		switch {
		case t.Rows >= 0 && t.Exact:
			facts = append(facts, fmt.Sprintf("%d rows", t.Rows))
		case t.Rows >= 0:
			facts = append(facts, fmt.Sprintf("about %d rows", t.Rows))
		}
		if t.Bytes > 0 {
			facts = append(facts, kernel.FormatSize(t.Bytes))
		}
		if t.Large {
			facts = append(facts, fmt.Sprintf("large: the sandbox has %s of memory, too little for it as a DataFrame; aggregate in SQL", kernel.FormatSize(p.Memory)))
		}
		fmt.Fprintf(&b, "\n  %s.%s (%s)", k.quote(t.Schema), k.quote(t.Name), strings.Join(facts, ", "))
		cols := make([]string, 0, len(t.Columns))
		for i, c := range t.Columns {
			if i == maxColumns {
				cols = append(cols, fmt.Sprintf("… %d more", len(t.Columns)-maxColumns))
				break
			}
			cols = append(cols, k.quote(c.Name)+" "+c.Type)
		}
		fmt.Fprintf(&b, "\n    columns: %s", strings.Join(cols, ", "))
		if examples {
			for _, row := range t.Examples {
				if len(row) > maxColumns {
					row = row[:maxColumns]
				}
				fmt.Fprintf(&b, "\n    row: %s", strings.Join(row, " | "))
			}
		}
	}
	if more := p.Total - len(p.Tables); more > 0 {
		fmt.Fprintf(&b, "\n  … and %d more tables and views, not listed: find them with sql(%q, db=%q)", more, k.find, p.Name)
	}
	return b.String()
}

// quotePostgres quotes a name only when PostgreSQL needs it.
func quotePostgres(s string) string {
	if plainName(s, false) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteMySQL quotes a name only when MariaDB and MySQL need it.
func quoteMySQL(s string) string {
	if plainName(s, true) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// plainName says whether s is a name SQL reads unquoted: a letter or '_',
// then letters, digits or '_', and no common reserved word. PostgreSQL
// folds unquoted names to lower case, so upper case needs quotes there
// (anyCase false); MariaDB and MySQL keep the case.
func plainName(s string, anyCase bool) bool {
	if s == "" || reserved[strings.ToLower(s)] {
		return false
	}
	for i, r := range s {
		lower := r == '_' || r >= 'a' && r <= 'z'
		if !(lower || anyCase && r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// reserved are the reserved words tables and columns are most often
// named, in both kinds' SQL.
var reserved = map[string]bool{"all": true, "and": true, "as": true, "by": true, "case": true, "check": true,
	"column": true, "default": true, "desc": true, "from": true, "group": true, "in": true, "index": true,
	"key": true, "limit": true, "not": true, "null": true, "on": true, "or": true, "order": true, "range": true,
	"rank": true, "select": true, "table": true, "to": true, "union": true, "user": true, "values": true, "where": true}
