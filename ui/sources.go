package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// /sources: every database sql(query, db=NAME) reaches, by the name db=
// takes: the servers the session connected to (on the host) and the
// SQLite and DuckDB files attached (read in the sandbox), each with its
// tables and size.

const nbsp = "\u00a0"

// sourcesListed is how many tables of a database file /sources names.
const sourcesListed = 12

// dbFile is an attached database file as sql(db=) reaches it.
type dbFile struct {
	db      string // the name db= takes
	profile *kernel.Profile
}

// dbFiles are the attached SQLite and DuckDB files with the name db=
// takes for each: the kernel looks through /data in name order for a
// file called NAME or NAME plus an extension, so a file's name without
// its extension unless an earlier file answers to it, else its whole name.
func (m *Model) dbFiles() []dbFile {
	var files []*kernel.Profile
	for _, c := range m.fileChips() {
		if p := c.profile; p != nil && (p.Kind == "sqlite" || p.Kind == "duckdb") {
			files = append(files, p)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	out := make([]dbFile, 0, len(files))
	for i, p := range files {
		db := strings.TrimSuffix(p.Name, filepath.Ext(p.Name))
		for _, q := range files[:i] {
			if q.Name == db || strings.TrimSuffix(q.Name, filepath.Ext(q.Name)) == db {
				db = p.Name
				break
			}
		}
		out = append(out, dbFile{db: db, profile: p})
	}
	return out
}

// clusterBackend is a backend whose sandbox may reach a Dask cluster: what
// its kernel found there at its last connection (held, not fetched).
type clusterBackend interface {
	Cluster() (kernel.Cluster, bool)
}

// clusterText is /sources' line on the Dask cluster; "" when there is none.
func (m *Model) clusterText() string {
	cb, ok := m.opts.Backend.(clusterBackend)
	if !ok {
		return ""
	}
	c, ok := cb.Cluster()
	if !ok {
		return ""
	}
	if c.Error != "" {
		return fmt.Sprintf("Dask cluster %s: not reached: %s", sanitizeLine(c.Name), sanitizeLine(c.Error))
	}
	line := fmt.Sprintf("Dask cluster %s: %d workers, %d threads, %s of worker memory; client and dd in the cells",
		sanitizeLine(c.Name), c.Workers, c.Threads, kernel.FormatSize(c.Memory))
	if c.Mismatch != "" {
		line += "\n  " + sanitizeLine(c.Mismatch)
	}
	return line
}

func (m *Model) sourcesText() string {
	if cl := m.clusterText(); cl != "" {
		return cl + "\n" + m.databasesText()
	}
	return m.databasesText()
}

func (m *Model) databasesText() string {
	files := m.dbFiles()
	if len(m.opts.Sources) == 0 && len(files) == 0 {
		hint := m.opts.SourceHint
		if hint == "" {
			hint = "NAME=URL"
		}
		return "No database: start quarry with --db " + hint + ", or attach a SQLite or DuckDB file."
	}
	var b strings.Builder
	b.WriteString("Databases sql(query, db=NAME) reads, read-only:")
	byFile := map[string]string{}
	for _, f := range files {
		byFile[f.db] = f.profile.Name
	}
	for _, s := range m.opts.Sources {
		fmt.Fprintf(&b, "\n  db=%q: %s, %s", sanitizeLine(s.Name), sanitizeLine(s.Server), sanitizeLine(s.Where))
		if f, ok := byFile[s.Name]; ok {
			fmt.Fprintf(&b, "\n    not reachable: db=%q reads the attached file %s first", sanitizeLine(s.Name), sanitizeLine(f))
		}
	}
	for _, f := range files {
		p := f.profile
		kind := "SQLite"
		if p.Kind == "duckdb" {
			kind = "DuckDB"
		}
		fmt.Fprintf(&b, "\n  db=%q: %s file %s, %s, %s", sanitizeLine(f.db), kind, sanitizeLine(p.Name), tablesText(p), kernel.FormatSize(p.Size))
		if len(p.Sheets) > 0 {
			b.WriteString("\n    " + tableList(p))
		}
	}
	return b.String()
}

// tableCount is how many tables a database file holds.
func tableCount(p *kernel.Profile) int { return max(p.Tables, len(p.Sheets)) }

// tablesText is "11 tables", "1 table".
func tablesText(p *kernel.Profile) string {
	if n := tableCount(p); n != 1 {
		return render.GroupInt(n) + " tables"
	}
	return "1 table"
}

// tableList names a database file's first tables with their shapes:
// "albums 347 × 3, artists 275 × 2, … and 3 more"; a line wraps between
// tables, not inside one (no-break spaces).
func tableList(p *kernel.Profile) string {
	parts := make([]string, 0, sourcesListed+1)
	for i, s := range p.Sheets {
		if i == sourcesListed {
			break
		}
		part := sanitizeLine(s.Name) + " " + render.GroupInt(s.Rows)
		if w := max(s.ColumnCount, len(s.Columns)); w > 0 {
			part += fmt.Sprintf(" × %d", w)
		} else {
			part += " rows"
		}
		parts = append(parts, strings.ReplaceAll(part, " ", nbsp))
	}
	if more := tableCount(p) - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("… and %s more", render.GroupInt(more)))
	}
	return strings.Join(parts, ", ")
}
