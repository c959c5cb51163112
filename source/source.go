package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/quarry-cli/quarry/secret"
)

// Source is one live PostgreSQL database. Its queries run one at a time
// on one connection, made again when the server dropped it.
type Source struct {
	spec     Spec
	cfg      *pgx.ConnConfig
	password string // what pgx found, from wherever it came
	masker   *secret.Masker
	Version  string // the server's version, as it reports it

	mu   sync.Mutex
	conn *pgx.Conn
}

// Name is the name sql(db=NAME) uses.
func (s *Source) Name() string { return s.spec.Name }

// Where says which server and database, without credentials:
// "quarry@/run/postgresql/sales", "analyst@db.example.com:5432/sales".
func (s *Source) Where() string {
	host := s.cfg.Host
	if s.cfg.Port != 0 && !strings.HasPrefix(host, "/") {
		host = fmt.Sprintf("%s:%d", host, s.cfg.Port)
	}
	return s.masker.Mask(fmt.Sprintf("%s@%s/%s", s.cfg.User, host, s.cfg.Database))
}

// Parse reads a spec into a source without connecting; the password is
// looked up as psql looks it up.
func Parse(spec Spec) (*Source, error) {
	if err := CheckName(spec.Name); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(spec.URL)
	if err != nil {
		// pgx's parse errors may quote the string: mask it whole.
		return nil, fmt.Errorf("source %s: %s", spec.Name, maskSpec(strings.ReplaceAll(err.Error(), spec.URL, "the URL")))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	cfg.RuntimeParams["application_name"] = "quarry"
	// A query whose context ends is cancelled on the server and the
	// connection kept (pgx's default closes it, cancelling as it goes).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: 0, DeadlineDelay: 3 * time.Second}
	}
	s := &Source{spec: spec, cfg: cfg, password: cfg.Password}
	s.masker = secret.New(s.Secrets()...)
	return s, nil
}

// Open parses and checks a source: it connects, asks the server's version
// and opens a read-only transaction. The error names the source and the
// reason, never the password.
func Open(ctx context.Context, spec Spec) (*Source, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	if err := s.Check(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Check connects (again, if needed) and proves a read-only transaction
// works; it sets Version.
func (s *Source) Check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.connLocked(ctx)
	if err != nil {
		return err
	}
	var v string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		s.dropLocked()
		return s.failure(err)
	}
	s.Version = v
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err == nil {
		var one int
		err = tx.QueryRow(ctx, "SELECT 1").Scan(&one)
		tx.Rollback(ctx)
	}
	if err != nil {
		s.dropLocked()
		return s.failure(fmt.Errorf("a read-only transaction failed: %w", err))
	}
	return nil
}

func (s *Source) connLocked(ctx context.Context) (*pgx.Conn, error) {
	if s.conn != nil && !s.conn.IsClosed() {
		return s.conn, nil
	}
	s.conn = nil
	c, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return nil, s.failure(err)
	}
	s.conn = c
	return c, nil
}

func (s *Source) dropLocked() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

// Close ends the connection.
func (s *Source) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked()
}

// failure words a connection failure: the source, the reason in plain
// words, the server's or the system's own text, masked.
func (s *Source) failure(err error) error {
	return s.mask(fmt.Errorf("source %s (%s): %s: %w", s.spec.Name, s.Where(), Reason(err), err))
}

// Reason names the cause of a failure to reach a source.
func Reason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01":
			return "wrong password"
		case "28000":
			return "the server refused the user"
		case "3D000":
			return "no such database"
		case "57P03":
			return "the server is starting up or shutting down"
		case "53300":
			return "the server has no free connections"
		}
		if strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") {
			return "the server ended the connection"
		}
		return "the server refused"
	}
	var ne net.Error
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no password supplied") || strings.Contains(msg, "password is empty"):
		return "no password (give it in the URL, PGPASSWORD or ~/.pgpass)"
	case errors.Is(err, os.ErrNotExist) || strings.Contains(msg, "no such file or directory"):
		return "unreachable (no server at that socket)"
	case strings.Contains(msg, "connection refused"):
		return "unreachable (connection refused)"
	case strings.Contains(msg, "no such host"):
		return "unreachable (unknown host)"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() || strings.Contains(msg, "timeout"):
		return "unreachable (timed out)"
	case strings.Contains(msg, "EOF") || strings.Contains(msg, "broken pipe") || strings.Contains(msg, "reset by peer") || strings.Contains(msg, "conn closed"):
		return "the connection was lost"
	}
	return "cannot connect"
}
