package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/quarry-cli/quarry/secret"
)

// Query runs the statement in a READ ONLY transaction with SET LOCAL
// statement_timeout; the transaction is always rolled back. A stopped
// query is cancelled on the server (a cancel request).
func (s *pgSource) Query(ctx context.Context, query string, lim Limits, w io.Writer) (Result, error) {
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

func (s *pgSource) queryError(err error) error {
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
	return s.mask(fmt.Errorf("source %s: %s: %w", s.spec.Name, s.reason(err), err))
}

func (s *pgSource) queryLocked(ctx context.Context, query string, lim Limits, w io.Writer) (res Result, sent bool, err error) {
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

// stream turns rows into Arrow batches on w. On reaching a cap it cancels
// the query on the server (cancel) rather than reading the rest.
func (s *pgSource) stream(rows pgx.Rows, lim Limits, w io.Writer, cancel context.CancelFunc) (Result, error) {
	fds := rows.FieldDescriptions()
	if len(fds) == 0 {
		for rows.Next() {
		}
		return Result{}, rows.Err()
	}
	m := rows.Conn().TypeMap()
	cols := make([]column, len(fds))
	fields := make([]arrow.Field, len(fds))
	for i, fd := range fds {
		cols[i] = newColumn(fd, m)
		fields[i] = arrow.Field{Name: fd.Name, Type: cols[i].typ, Nullable: true}
	}
	out := newBatches(fields, lim, w)
	defer out.release()
	for rows.Next() {
		raw := rows.RawValues()
		size := int64(0)
		for _, v := range raw {
			size += int64(len(v)) + 4
		}
		if !out.admit(size) {
			cancel()
			return out.finish()
		}
		for i, v := range raw {
			if err := cols[i].appendValue(out.field(i), v); err != nil {
				return out.res, fmt.Errorf("column %q: %w", fds[i].Name, err)
			}
		}
		if err := out.added(size); err != nil {
			return out.res, err
		}
	}
	if err := rows.Err(); err != nil {
		return out.res, err
	}
	return out.finish()
}
