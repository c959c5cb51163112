package source

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/quarry-cli/quarry/secret"
)

// pgSource is one live PostgreSQL database (or a server speaking its
// protocol), reached with pgx.
type pgSource struct {
	kind     *Kind
	spec     Spec
	cfg      *pgx.ConnConfig
	password string // what pgx found, from wherever it came
	masker   *secret.Masker
	version  string // the server's, as it reports it

	mu   sync.Mutex
	conn *pgx.Conn
}

func (s *pgSource) Name() string { return s.spec.Name }

func (s *pgSource) Kind() *Kind { return s.kind }

func (s *pgSource) Server() string { return "PostgreSQL " + s.version }

// Where: "quarry@/run/postgresql/sales", "analyst@db.example.com:5432/sales".
func (s *pgSource) Where() string {
	host := s.cfg.Host
	if s.cfg.Port != 0 && !strings.HasPrefix(host, "/") {
		host = fmt.Sprintf("%s:%d", host, s.cfg.Port)
	}
	return s.masker.Mask(fmt.Sprintf("%s@%s/%s", s.cfg.User, host, s.cfg.Database))
}

// parsePostgres reads a spec without connecting; the password is looked
// up as psql looks it up.
func parsePostgres(k *Kind, spec Spec) (Source, error) {
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
	s := &pgSource{kind: k, spec: spec, cfg: cfg, password: cfg.Password}
	s.masker = secret.New(s.Secrets()...)
	return s, nil
}

func (s *pgSource) Check(ctx context.Context) error {
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
	s.version = v
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

func (s *pgSource) connLocked(ctx context.Context) (*pgx.Conn, error) {
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

func (s *pgSource) dropLocked() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

func (s *pgSource) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked()
}

// failure words a connection failure: the source, the reason in plain
// words, the server's or the system's own text, masked.
func (s *pgSource) failure(err error) error {
	return s.mask(fmt.Errorf("source %s (%s): %s: %w", s.spec.Name, s.Where(), s.reason(err), err))
}

// reason names the cause of a failure to reach a PostgreSQL source.
func (s *pgSource) reason(err error) string {
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
	return netReason(err, s.kind.Passwords)
}
