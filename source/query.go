package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/quarry-cli/quarry/secret"
)

// Limits bound one query. Zero fields take the defaults.
type Limits struct {
	Timeout  time.Duration // the server's statement_timeout: the cell's timeout
	MaxRows  int64         // rows sent to the kernel; the rest are not fetched
	MaxBytes int64         // bytes of values sent to the kernel
}

// Defaults for Limits.
const (
	DefaultMaxRows  = 1_000_000
	DefaultMaxBytes = 512 << 20
	DefaultTimeout  = 2 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Result says what a query sent.
type Result struct {
	Rows    int64
	Columns int
	Bytes   int64
	// Cut says why fewer rows were sent than the query had (a cap was
	// reached); empty when the result is whole.
	Cut string
}

// batchRows is the rows per Arrow record batch: large enough that the
// per-batch cost vanishes, small enough to stream.
const batchRows = 64 << 10

// Query runs one statement in a READ ONLY transaction and writes its rows
// to w as an Arrow IPC stream (a schema, then record batches). A statement
// with no rows writes nothing. A write fails with the server's own words
// (read-only transaction); the transaction is always rolled back.
func (s *Source) Query(ctx context.Context, query string, lim Limits, w io.Writer) (Result, error) {
	lim = lim.withDefaults()
	s.mu.Lock()
	defer s.mu.Unlock()
	res, sent, err := s.queryLocked(ctx, query, lim, w)
	if err != nil && !sent && ctx.Err() == nil && pgconn.SafeToRetry(err) {
		// The connection broke between cells (a server restart): once more
		// on a new one, as nothing reached the server.
		s.dropLocked()
		res, _, err = s.queryLocked(ctx, query, lim, w)
	}
	if err != nil && s.conn != nil && s.conn.IsClosed() {
		s.dropLocked()
	}
	return res, s.queryError(err)
}

func (s *Source) queryError(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == "57014" { // query_canceled: ours or the timeout's
			return s.mask(fmt.Errorf("source %s: the query was cancelled on the server: %w", s.spec.Name, err))
		}
		return s.mask(err) // the server's own words: the cell shows them
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return s.mask(fmt.Errorf("source %s: the query was stopped (and cancelled on the server)", s.spec.Name))
	}
	if secret.Masked(err) {
		return err
	}
	return s.mask(fmt.Errorf("source %s: %s: %w", s.spec.Name, Reason(err), err))
}

func (s *Source) queryLocked(ctx context.Context, query string, lim Limits, w io.Writer) (res Result, sent bool, err error) {
	c, err := s.connLocked(ctx)
	if err != nil {
		return res, false, err
	}
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tx, err := c.BeginTx(qctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return res, false, err
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
		tx.Rollback(rctx)
		rcancel()
	}()
	if _, err := tx.Exec(qctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", lim.Timeout.Milliseconds())); err != nil {
		return res, true, err
	}
	rows, err := tx.Query(qctx, query, pgx.QueryExecModeDescribeExec)
	if err != nil {
		return res, true, err
	}
	defer rows.Close()
	res, err = s.stream(rows, lim, w, cancel)
	return res, true, err
}

// stream turns rows into Arrow batches on w, LZ4-compressed: the stream
// crosses the engine's attach, where bytes cost more than the CPU. On
// reaching a cap it cancels the query on the server (cancel) rather than
// reading the rest.
func (s *Source) stream(rows pgx.Rows, lim Limits, w io.Writer, cancel context.CancelFunc) (Result, error) {
	var res Result
	fds := rows.FieldDescriptions()
	if len(fds) == 0 {
		for rows.Next() {
		}
		return res, rows.Err()
	}
	m := rows.Conn().TypeMap()
	cols := make([]column, len(fds))
	fields := make([]arrow.Field, len(fds))
	for i, fd := range fds {
		cols[i] = newColumn(fd, m)
		fields[i] = arrow.Field{Name: fd.Name, Type: cols[i].typ, Nullable: true}
	}
	schema := arrow.NewSchema(uniqueNames(fields), nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	iw := ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator), ipc.WithLZ4())
	res.Columns = len(fds)
	n := 0
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		n = 0
		return iw.Write(rec)
	}
	for rows.Next() {
		raw := rows.RawValues()
		size := int64(0)
		for _, v := range raw {
			size += int64(len(v)) + 4
		}
		if res.Rows >= lim.MaxRows {
			res.Cut = fmt.Sprintf("the result has more than %d rows; only the first %d were fetched (the row cap): aggregate in SQL, or pass max_rows= (setting db_max_rows)", lim.MaxRows, lim.MaxRows)
			cancel()
			break
		}
		if res.Bytes+size > lim.MaxBytes {
			res.Cut = fmt.Sprintf("the result is larger than %d MiB; only the first %d rows were fetched (the size cap): select fewer columns, aggregate in SQL (setting db_max_bytes)", lim.MaxBytes>>20, res.Rows)
			cancel()
			break
		}
		for i, v := range raw {
			if err := cols[i].appendValue(b.Field(i), v); err != nil {
				return res, fmt.Errorf("column %q: %w", fds[i].Name, err)
			}
		}
		res.Rows++
		res.Bytes += size
		n++
		if n == batchRows {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if res.Cut == "" {
		if err := rows.Err(); err != nil {
			return res, err
		}
	}
	if n > 0 || res.Rows == 0 {
		if err := flush(); err != nil {
			return res, err
		}
	}
	return res, iw.Close()
}

// uniqueNames renames repeated column names (SELECT a.id, b.id) the way
// pandas would not: id, id_2; a DataFrame with two "id" columns misleads.
func uniqueNames(fields []arrow.Field) []arrow.Field {
	seen := map[string]int{}
	for i := range fields {
		name := fields[i].Name
		if seen[name]++; seen[name] > 1 {
			fields[i].Name = fmt.Sprintf("%s_%d", name, seen[name])
		}
	}
	return fields
}
