package source

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// mySystemSchemas hold the server's own tables, not the user's data.
const mySystemSchemas = `('information_schema', 'mysql', 'performance_schema', 'sys')`

// myTableKinds are information_schema's TABLE_TYPE values as the profile
// names them.
var myTableKinds = map[string]string{"BASE TABLE": "table", "SYSTEM VERSIONED": "table", "VIEW": "view", "SEQUENCE": "sequence"}

// Profile reads information_schema in one read-only transaction: the
// URL's database first, then the other databases the user may read,
// largest first. TABLE_ROWS is InnoDB's estimate (exact for MyISAM and
// Aria); small InnoDB tables among those listed are counted.
func (s *mySource) Profile(ctx context.Context, o ProfileOptions) (Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.connLocked(ctx)
	if err != nil {
		return Profile{Name: s.spec.Name, Where: s.Where(), Memory: o.Memory, kind: s.kind}, err
	}
	p := Profile{Name: s.spec.Name, Where: s.Where(), Server: s.Server(), Memory: o.Memory, kind: s.kind}
	wt := s.watch(ctx, c.id, 10*time.Second)
	defer wt.stop()
	q := func(query string, each func([]driver.Value) error) error {
		return s.rows(wt.ctx, c, query, each)
	}
	if err := myExec(wt.ctx, c.c, s.timeLimit(10*time.Second)); err != nil {
		return p, s.queryError(ctx, err)
	}
	if err := myExec(wt.ctx, c.c, "START TRANSACTION READ ONLY"); err != nil {
		return p, s.queryError(ctx, err)
	}
	defer myExec(wt.ctx, c.c, "ROLLBACK")
	const readable = ` FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN ` + mySystemSchemas + ``
	if err := q("SELECT COUNT(*)"+readable, func(v []driver.Value) error {
		n, err := myInt(v[0])
		p.Total = int(n)
		return err
	}); err != nil {
		return p, s.queryError(ctx, wt.why(err))
	}
	listed := `SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_ROWS, COALESCE(DATA_LENGTH, 0), COALESCE(ENGINE, '')` + readable +
		` ORDER BY TABLE_SCHEMA = DATABASE() DESC, 5 DESC, TABLE_SCHEMA, TABLE_NAME LIMIT ` + strconv.Itoa(MaxTables)
	type engine struct{ exact, small bool }
	var engines []engine
	if err := q(listed, func(v []driver.Value) error {
		t := Table{Schema: myText(v[0]), Name: myText(v[1]), Kind: myTableKinds[myText(v[2])], Rows: -1}
		if t.Kind == "" {
			t.Kind = strings.ToLower(myText(v[2]))
		}
		if v[3] != nil {
			t.Rows, _ = myInt(v[3])
		}
		t.Bytes, _ = myInt(v[4])
		e := myText(v[5])
		engines = append(engines, engine{exact: e == "MyISAM" || e == "Aria", small: e != "" && t.Bytes < countBelowBytes/4})
		t.Exact = t.Rows >= 0 && engines[len(engines)-1].exact
		t.Large = o.Memory > 0 && t.Bytes > o.Memory/2
		p.Tables = append(p.Tables, t)
		return nil
	}); err != nil {
		return p, s.queryError(ctx, wt.why(err))
	}
	// The columns, a query per database naming its tables: MariaDB then
	// opens only those, not every table of the server.
	bySchema := map[string][]int{}
	var schemas []string
	for i, t := range p.Tables {
		if bySchema[t.Schema] == nil {
			schemas = append(schemas, t.Schema)
		}
		bySchema[t.Schema] = append(bySchema[t.Schema], i)
	}
	for _, schema := range schemas {
		byName := map[string]int{}
		names := make([]string, 0, len(bySchema[schema]))
		for _, i := range bySchema[schema] {
			byName[p.Tables[i].Name] = i
			names = append(names, myString(p.Tables[i].Name))
		}
		columns := "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = " +
			myString(schema) + " AND TABLE_NAME IN (" + strings.Join(names, ", ") + ") ORDER BY TABLE_NAME, ORDINAL_POSITION"
		if err := q(columns, func(v []driver.Value) error {
			// The comparison ignores case: keep only the names listed.
			if i, ok := byName[myText(v[1])]; ok && myText(v[0]) == schema {
				p.Tables[i].Columns = append(p.Tables[i].Columns, Column{Name: myText(v[2]), Type: myText(v[3])})
			}
			return nil
		}); err != nil {
			return p, s.queryError(ctx, wt.why(err))
		}
	}
	for i := range p.Tables {
		t := &p.Tables[i]
		if t.Kind == "table" && !engines[i].exact && engines[i].small {
			// An estimate of a small table is cheap to make exact.
			if err := q("SELECT COUNT(*) FROM "+t.myIdent(), func(v []driver.Value) error {
				t.Rows, _ = myInt(v[0])
				return nil
			}); err == nil {
				t.Exact = true
			}
		}
		if o.Examples && i < exampleTables {
			q(fmt.Sprintf("SELECT * FROM %s LIMIT %d", t.myIdent(), exampleRows), func(v []driver.Value) error {
				row := make([]string, len(v))
				for j, x := range v {
					row[j] = myExampleText(x)
				}
				t.Examples = append(t.Examples, row)
				return nil
			})
		}
	}
	return p, nil
}

// rows runs a query of the profile and calls each for every row.
func (s *mySource) rows(ctx context.Context, c *myConn, query string, each func([]driver.Value) error) error {
	rows, err := c.c.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(vals); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := each(vals); err != nil {
			return err
		}
	}
}

// myString is s as a string literal that reads the same whatever the
// server's sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES): its UTF-8 bytes
// in hexadecimal.
func myString(s string) string { return "_utf8mb4 X'" + hex.EncodeToString([]byte(s)) + "'" }

// myIdent is the table as MariaDB/MySQL SQL names it, always quoted.
func (t *Table) myIdent() string {
	q := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	return q(t.Schema) + "." + q(t.Name)
}

func myExampleText(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		if !isTextual(x) {
			return fmt.Sprintf("<%d bytes>", len(x))
		}
		return clip(string(x), 40)
	}
	return clip(myText(v), 40)
}

// isTextual says whether b reads as text: valid UTF-8 without control
// characters other than white space.
func isTextual(b []byte) bool {
	return utf8.Valid(b) && !bytes.ContainsFunc(b, func(r rune) bool { return r < ' ' && r != '\t' && r != '\n' && r != '\r' })
}
