package source

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/go-sql-driver/mysql"

	"github.com/quarry-cli/quarry/secret"
)

// Query runs the statement in START TRANSACTION READ ONLY (the session's
// transactions are all read-only too, so DDL, which commits on its own,
// is refused as well) under the server's statement time limit
// (max_statement_time on MariaDB, MAX_EXECUTION_TIME on MySQL); the
// transaction is always rolled back. A stopped query is killed on the
// server from a second connection.
func (s *mySource) Query(ctx context.Context, query string, lim Limits, w io.Writer) (Result, error) {
	lim = lim.withDefaults()
	s.mu.Lock()
	defer s.mu.Unlock()
	res, sent, err := s.queryLocked(ctx, query, lim, w)
	if err != nil && !sent && ctx.Err() == nil && errors.Is(err, driver.ErrBadConn) {
		// The connection broke between cells (a server restart): once more
		// on a new one, as nothing reached the server.
		s.dropLocked()
		res, _, err = s.queryLocked(ctx, query, lim, w)
	}
	if err != nil && s.conn != nil {
		if v, ok := s.conn.c.(driver.Validator); ok && !v.IsValid() {
			s.dropLocked()
		}
	}
	return res, s.queryError(ctx, err)
}

// myStopped are the server's errors for a statement stopped by KILL QUERY
// or by its time limit (MariaDB's, MySQL's).
var myStopped = map[uint16]bool{1317: true, 1969: true, 3024: true}

func (s *mySource) queryError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return s.masker.WrapError(fmt.Errorf("source %s: the query was stopped (and cancelled on the server)", s.spec.Name))
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		if myStopped[me.Number] {
			return s.masker.WrapError(fmt.Errorf("source %s: the query was cancelled on the server: %w", s.spec.Name, err))
		}
		return s.masker.WrapError(err) // the server's own words: the cell shows them
	}
	if errors.Is(err, errMyTimeout) || errors.Is(err, errMyStopped) {
		return s.masker.WrapError(fmt.Errorf("source %s: %w", s.spec.Name, err))
	}
	if secret.Masked(err) { // a connection failure, worded already
		return err
	}
	return s.masker.WrapError(fmt.Errorf("source %s: %s: %w", s.spec.Name, s.reason(err), err))
}

var (
	errMyTimeout = errors.New("the query passed its time limit and was cancelled on the server")
	errMyStopped = errors.New("the query was stopped (and cancelled on the server)")
)

func (s *mySource) queryLocked(ctx context.Context, query string, lim Limits, out io.Writer) (res Result, sent bool, err error) {
	c, err := s.connLocked(ctx)
	if err != nil {
		return res, false, err
	}
	wt := s.watch(ctx, c.id, lim.Timeout)
	defer wt.stop()
	if err := myExec(wt.ctx, c.c, s.timeLimit(lim.Timeout)); err != nil {
		return res, false, err
	}
	if err := myExec(wt.ctx, c.c, "START TRANSACTION READ ONLY"); err != nil {
		return res, true, err
	}
	defer myExec(wt.ctx, c.c, "ROLLBACK")
	rows, done, err := myRows(wt.ctx, c.c, query)
	if err != nil {
		return res, true, wt.why(err)
	}
	defer done()
	res, err = s.stream(rows, lim, out, wt.cap)
	return res, true, wt.why(err)
}

// myRows runs a query by the binary protocol, as a prepared statement:
// the server sends numbers and dates as they are rather than as text,
// about three times faster for a large result. A statement the server
// cannot prepare, or one with placeholders, goes as text (where the
// server says what is wrong with it). done closes the rows.
func myRows(ctx context.Context, c driver.Conn, query string) (rows driver.Rows, done func(), err error) {
	st, err := c.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err == nil && st.NumInput() == 0 {
		rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, nil)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		return rows, func() { rows.Close(); st.Close() }, nil
	}
	if err == nil {
		st.Close()
	} else if me := (*mysql.MySQLError)(nil); !errors.As(err, &me) || me.Number != 1295 { // ER_UNSUPPORTED_PS
		return nil, nil, err
	}
	rows, err = c.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		return nil, nil, err
	}
	return rows, func() { rows.Close() }, nil
}

// timeLimit is the statement that sets the server's limit for the
// session's next statements.
func (s *mySource) timeLimit(d time.Duration) string {
	if s.mariadb() {
		return fmt.Sprintf("SET SESSION max_statement_time = %.3f", d.Seconds())
	}
	return fmt.Sprintf("SET SESSION max_execution_time = %d", d.Milliseconds())
}

// myWatch stops a statement from outside: when the cell's context ends,
// when its time limit passed and the server did not stop it (a MySQL
// before 5.7 has none; MySQL's covers only SELECT), or when a cap was
// reached, it sends KILL QUERY from a second connection. When that does
// not end the statement within a grace, the driver's own context is
// cancelled, which closes the connection.
type myWatch struct {
	ctx      context.Context // the driver's; ends only after the grace
	cancel   context.CancelFunc
	done     chan struct{}
	exited   chan struct{}
	s        *mySource
	id       uint64
	mu       sync.Mutex
	timedOut bool
}

func (s *mySource) watch(ctx context.Context, id uint64, timeout time.Duration) *myWatch {
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &myWatch{ctx: dctx, cancel: cancel, done: make(chan struct{}), exited: make(chan struct{}), s: s, id: id}
	go func() {
		defer close(w.exited)
		limit := time.NewTimer(timeout + 2*time.Second) // the server's own limit first
		defer limit.Stop()
		select {
		case <-w.done:
			return
		case <-ctx.Done():
		case <-limit.C:
			w.mu.Lock()
			w.timedOut = true
			w.mu.Unlock()
		}
		w.kill()
		select {
		case <-w.done:
		case <-time.After(3 * time.Second):
			cancel()
		}
	}()
	return w
}

// kill sends KILL QUERY; when no second connection can be made, it closes
// the first.
func (w *myWatch) kill() {
	if err := w.s.kill(w.id); err != nil {
		w.cancel()
	}
}

// cap stops the statement once the result reached a cap: the server stops
// sending rather than the rest being read and dropped.
func (w *myWatch) cap() { w.kill() }

// stop ends the watch, waiting for a KILL under way: none reaches a later
// statement of the connection.
func (w *myWatch) stop() {
	close(w.done)
	<-w.exited
	w.cancel()
}

// why words an error of a statement the watch stopped.
func (w *myWatch) why(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timedOut {
		return errMyTimeout
	}
	if err != nil && w.ctx.Err() != nil {
		return errMyStopped
	}
	return err
}

// stream turns rows into Arrow batches on w; at a cap it calls stop.
func (s *mySource) stream(rows driver.Rows, lim Limits, w io.Writer, stop func()) (Result, error) {
	names := rows.Columns()
	if len(names) == 0 {
		return Result{}, nil
	}
	types, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	ps, _ := rows.(driver.RowsColumnTypePrecisionScale)
	fields := make([]arrow.Field, len(names))
	bits := make([]bool, len(names))
	for i, name := range names {
		dbType := ""
		if types != nil {
			dbType = types.ColumnTypeDatabaseTypeName(i)
		}
		var p, sc int64
		if ps != nil {
			p, sc, _ = ps.ColumnTypePrecisionScale(i)
		}
		fields[i] = arrow.Field{Name: name, Type: myArrowType(dbType, p, sc), Nullable: true}
		bits[i] = dbType == "BIT"
	}
	out := newBatches(fields, lim, w)
	defer out.release()
	vals := make([]driver.Value, len(names))
	for {
		if err := rows.Next(vals); err == io.EOF {
			break
		} else if err != nil {
			return out.res, err
		}
		size := int64(0)
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				size += int64(len(b)) + 4
			} else {
				size += 8
			}
		}
		if !out.admit(size) {
			stop()
			return out.finish()
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok && bits[i] {
				v = myBits(b)
			}
			if err := myAppend(out.field(i), v); err != nil {
				return out.res, fmt.Errorf("column %q: %w", names[i], err)
			}
		}
		if err := out.added(size); err != nil {
			return out.res, err
		}
	}
	return out.finish()
}
