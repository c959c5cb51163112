package source

import (
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// Text renders the profile for the system prompt. Without examples
// (share = schema) no value of the database goes to the model.
func (p Profile) Text(examples bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- database %q (PostgreSQL %s, %d tables and views): query it with sql(\"SELECT …\", db=%q)", p.Name, p.Version, p.Total, p.Name)
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
		fmt.Fprintf(&b, "\n  %s.%s (%s)", quoteIdent(t.Schema), quoteIdent(t.Name), strings.Join(facts, ", "))
		cols := make([]string, 0, len(t.Columns))
		for i, c := range t.Columns {
			if i == maxColumns {
				cols = append(cols, fmt.Sprintf("… %d more", len(t.Columns)-maxColumns))
				break
			}
			cols = append(cols, quoteIdent(c.Name)+" "+c.Type)
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
		fmt.Fprintf(&b, "\n  … and %d more tables and views, not listed: find them with sql(\"SELECT table_schema, table_name FROM information_schema.tables WHERE table_name ILIKE '%%word%%'\", db=%q)", more, p.Name)
	}
	return b.String()
}

// quoteIdent quotes a name only when SQL needs it.
func quoteIdent(s string) string {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}
