package export

import (
	"regexp"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
	"github.com/quarry-cli/quarry/source"
)

// A cell's sql(query, db=NAME) read a database through quarry. The
// notebook cannot reach quarry, so its setup defines sql() over a
// connection the reader fills in: a placeholder with no credentials (the
// record never had any), the session's user@host/db beside it.

var dbArgRE = regexp.MustCompile(`\bdb\s*=\s*(?:"([^"\\\n]{1,64})"|'([^'\\\n]{1,64})')`)

// dbNames are the databases the cells name in db=, sorted.
func (d *doc) dbNames() []string {
	seen := map[string]bool{}
	for _, t := range d.turns {
		for _, c := range t.Cells {
			for _, m := range dbArgRE.FindAllStringSubmatch(c.Code, -1) {
				seen[m[1]+m[2]] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sourcesSetup is the part of the setup cell that defines sql(); empty
// when no cell reads a database.
func (d *doc) sourcesSetup() []string {
	names := d.dbNames()
	if len(names) == 0 {
		return nil
	}
	byName := map[string]session.RecordedSource{}
	for _, s := range d.sources {
		byName[s.Name] = s
	}
	lines := []string{
		"",
		"# The session read databases with quarry's sql(query, db=NAME), on the host,",
		"# read-only. Put each one's connection here (SQLAlchemy URLs); the password",
		"# comes from where the driver finds it (PGPASSWORD or ~/.pgpass; for PyMySQL,",
		"# ?read_default_file=PATH to a my.cnf), never this file. A NAME without an",
		"# entry is a SQLite file in DATA_DIR.",
		"SOURCES = {",
	}
	for _, n := range names {
		s, ok := byName[n]
		if !ok {
			continue
		}
		k := source.KindByScheme(s.Kind)
		lines = append(lines, "    "+kernel.PyString(n)+": "+kernel.PyString(k.Notebook)+",  # in the session: "+pyComment(k.Name+", "+s.Where))
	}
	lines = append(lines, "}",
		"def sql(query, db=None, max_rows=None):",
		"    if db in SOURCES:",
		"        import sqlalchemy",
		"        with sqlalchemy.create_engine(SOURCES[db]).connect() as con:",
		"            return pd.read_sql_query(sqlalchemy.text(query), con)",
		"    if db is not None:",
		"        import glob, os, sqlite3",
		"        path = ([p for p in glob.glob(os.path.join(DATA_DIR, glob.escape(db) + '*')) if os.path.splitext(os.path.basename(p))[0] == db] + [os.path.join(DATA_DIR, db)])[0]",
		"        with sqlite3.connect('file:%s?mode=ro' % path, uri=True) as con:",
		"            return pd.read_sql_query(query, con)",
		"    import duckdb",
		"    return duckdb.sql(query).df()",
	)
	return lines
}

var quarryCallRE = regexp.MustCompile(`\b(variance|bridge)\s*\(`)

// varianceSetup is the part of the setup cell that says where variance()
// and bridge() are: they are quarry's kernel's (its FP&A conventions, the
// report readers), so plain Jupyter gets a clear error naming the command
// that reruns the notebook with them; empty when no cell calls them.
func (d *doc) varianceSetup() []string {
	var names []string
	seen := map[string]bool{}
	for _, t := range d.turns {
		for _, c := range t.Cells {
			for _, m := range quarryCallRE.FindAllStringSubmatch(c.Code, -1) {
				if !seen[m[1]] {
					seen[m[1]] = true
					names = append(names, m[1])
				}
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	lines := []string{"", "# The session called quarry's " + strings.Join(names, "() and ") + "(), which only its kernel has:",
		"# quarry rerun THIS.ipynb runs them there, on these files or new ones."}
	for _, n := range names {
		lines = append(lines, "def "+n+"(*args, **kwargs):",
			"    raise NotImplementedError(\""+n+"() is quarry's: run this notebook with quarry rerun NOTEBOOK.ipynb\")")
	}
	return lines
}
