package source

import "strings"

// Profile is what the model is told of a source: its tables and views with
// columns and types, the catalogue's row estimates, sizes against the
// sandbox's memory, and (share = values) a few example rows. It is bounded
// for schemas of thousands of tables: the largest first, the rest counted.
type Profile struct {
	Name   string
	Where  string
	Server string  // product and version: "PostgreSQL 17.6"
	Total  int     // tables and views the user may read
	Tables []Table // the first MaxTables of them
	Memory int64   // the sandbox's, which Large is judged against
	kind   *Kind   // how its SQL quotes names and finds tables
}

// Table is one table or view.
type Table struct {
	Schema, Name string
	Kind         string // table, view, materialized view, foreign table, partitioned table
	Rows         int64  // the catalogue's estimate; -1 unknown
	Exact        bool   // Rows was counted
	Bytes        int64  // on the server
	Large        bool   // Bytes is over half the sandbox's memory
	Columns      []Column
	Examples     [][]string // first rows, as text
}

// Column of a table.
type Column struct{ Name, Type string }

// Bounds of a profile.
const (
	MaxTables       = 60 // listed with their columns
	maxColumns      = 40 // per table
	exampleTables   = 12 // tables with example rows
	exampleRows     = 3  // per table
	countBelowBytes = 64 << 20
)

// ProfileOptions say what to include.
type ProfileOptions struct {
	Examples bool  // example rows (share = values)
	Memory   int64 // the sandbox's memory, to say when a table is large
}

// clip shortens s to n characters with an ellipsis, spaces folded.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
