package source

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Profile reads pg_class in one read-only transaction.
func (s *pgSource) Profile(ctx context.Context, o ProfileOptions) (Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Profile{Name: s.spec.Name, Where: s.Where(), Server: s.Server(), Memory: o.Memory, kind: s.kind}
	c, err := s.connLocked(ctx)
	if err != nil {
		return p, err
	}
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return p, s.queryError(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 10000"); err != nil {
		return p, s.queryError(err)
	}
	const readable = `FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r','v','m','p','f') AND NOT c.relispartition
		AND n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg\_%'
		AND has_table_privilege(c.oid, 'SELECT')`
	if err := tx.QueryRow(ctx, "SELECT count(*) "+readable).Scan(&p.Total); err != nil {
		return p, s.queryError(err)
	}
	// A partitioned table's own row estimate and size are its partitions'.
	rows, err := tx.Query(ctx, `SELECT c.oid, n.nspname, c.relname, c.relkind::text,
		CASE WHEN c.relkind = 'p' THEN coalesce((SELECT sum(greatest(p.reltuples, 0)) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = c.oid), -1)
			ELSE c.reltuples END::int8,
		CASE WHEN c.relkind IN ('r','m') THEN pg_table_size(c.oid)
			WHEN c.relkind = 'p' THEN coalesce((SELECT sum(pg_table_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = c.oid), 0)::int8
			ELSE 0 END `+readable+`
		ORDER BY (n.nspname = 'public') DESC, 6 DESC, n.nspname, c.relname LIMIT $1`, MaxTables)
	if err != nil {
		return p, s.queryError(err)
	}
	var oids []uint32
	for rows.Next() {
		var t Table
		var oid uint32
		if err := rows.Scan(&oid, &t.Schema, &t.Name, &t.Kind, &t.Rows, &t.Bytes); err != nil {
			rows.Close()
			return p, s.queryError(err)
		}
		t.Kind = kindNames[t.Kind]
		t.Large = o.Memory > 0 && t.Bytes > o.Memory/2
		oids = append(oids, oid)
		p.Tables = append(p.Tables, t)
	}
	if err := rows.Err(); err != nil {
		return p, s.queryError(err)
	}
	byOID := map[uint32]int{}
	for i, oid := range oids {
		byOID[oid] = i
	}
	rows, err = tx.Query(ctx, `SELECT attrelid, attname, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = ANY($1) AND attnum > 0 AND NOT attisdropped ORDER BY attrelid, attnum`, oids)
	if err != nil {
		return p, s.queryError(err)
	}
	for rows.Next() {
		var oid uint32
		var col Column
		if err := rows.Scan(&oid, &col.Name, &col.Type); err != nil {
			rows.Close()
			return p, s.queryError(err)
		}
		t := &p.Tables[byOID[oid]]
		t.Columns = append(t.Columns, col)
	}
	if err := rows.Err(); err != nil {
		return p, s.queryError(err)
	}
	for i := range p.Tables {
		t := &p.Tables[i]
		if t.Rows < 0 && t.Kind == "table" && t.Bytes < countBelowBytes {
			// Never analysed: small enough to count.
			if err := s.savepoint(ctx, tx, func() error {
				return tx.QueryRow(ctx, "SELECT count(*) FROM "+t.ident()).Scan(&t.Rows)
			}); err == nil {
				t.Exact = true
			} else {
				t.Rows = -1
			}
		}
		if o.Examples && i < exampleTables {
			s.savepoint(ctx, tx, func() error { return t.readExamples(ctx, tx) })
		}
	}
	return p, nil
}

var kindNames = map[string]string{"r": "table", "v": "view", "m": "materialized view", "p": "partitioned table", "f": "foreign table"}

// savepoint runs fn so that its failure (a view over a gone table, a
// timeout) leaves the transaction usable.
func (s *pgSource) savepoint(ctx context.Context, tx pgx.Tx, fn func() error) error {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(); err != nil {
		sp.Rollback(ctx)
		return err
	}
	return sp.Commit(ctx)
}

func (t *Table) ident() string { return pgx.Identifier{t.Schema, t.Name}.Sanitize() }

func (t *Table) readExamples(ctx context.Context, tx pgx.Tx) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	rows, err := tx.Query(ctx, fmt.Sprintf("SELECT * FROM %s LIMIT %d", t.ident(), exampleRows))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = exampleText(v)
		}
		t.Examples = append(t.Examples, row)
	}
	return rows.Err()
}

func exampleText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return clip(x, 40)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05")
	case []byte:
		return fmt.Sprintf("<%d bytes>", len(x))
	}
	if s, ok := v.(fmt.Stringer); ok {
		return clip(s.String(), 40)
	}
	if f, ok := v.(interface{ Float64Value() (pgtype.Float8, error) }); ok {
		if n, err := f.Float64Value(); err == nil && n.Valid {
			return fmt.Sprint(n.Float64)
		}
	}
	return clip(fmt.Sprint(v), 40)
}
