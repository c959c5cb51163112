package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// Source is one live database, of one of the kinds. Its queries run one at
// a time on one connection, made again when the server dropped it. Every
// error and text it returns is masked with its own secrets.
type Source interface {
	// Name is the name sql(db=NAME) uses.
	Name() string
	// Kind is the kind of server, from the table of kinds.
	Kind() *Kind
	// Server is the server's product and version as it reports them, once
	// checked: "PostgreSQL 17.6", "MariaDB 10.11.19".
	Server() string
	// Where says which server and database, without credentials:
	// "analyst@db.example.com:5432/sales", "quarry@/run/mysqld/mysqld.sock/sales".
	Where() string
	// Check connects (again, if needed), reads the server's version and
	// proves a read-only transaction works.
	Check(ctx context.Context) error
	// Profile reads the catalogue: what the model is told of the database.
	Profile(ctx context.Context, o ProfileOptions) (Profile, error)
	// Query runs one statement in a read-only transaction within lim and
	// writes its rows to w as an Arrow IPC stream (nothing for a statement
	// without rows). A write fails with the server's own words; a query
	// whose ctx ends, or that passes the timeout, is stopped on the server.
	Query(ctx context.Context, query string, lim Limits, w io.Writer) (Result, error)
	// Secrets are the credential values of the spec and the password the
	// source found elsewhere (environment, a password file), for a masker.
	Secrets() []string
	// Close ends the connection.
	Close()
}

// Parse reads a spec into a source of its kind without connecting; the
// password is looked up as the kind's own client looks it up.
func Parse(spec Spec) (Source, error) {
	if err := CheckName(spec.Name); err != nil {
		return nil, err
	}
	k, err := KindOf(spec.URL)
	if err != nil {
		return nil, fmt.Errorf("source %s: %s", spec.Name, maskSpec(err.Error()))
	}
	return k.open(k, spec)
}

// Open parses and checks a source. The error names the source and the
// reason, never the password.
func Open(ctx context.Context, spec Spec) (Source, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	if err := s.Check(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// netReason names the cause of a failure to reach a server that is not
// the server's own answer: the system's, the network's.
func netReason(err error, passwords string) string {
	var ne net.Error
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no password supplied") || strings.Contains(msg, "password is empty"):
		return "no password (give it in " + passwords + ")"
	case errors.Is(err, os.ErrNotExist) || strings.Contains(msg, "no such file or directory"):
		return "unreachable (no server at that socket)"
	case strings.Contains(msg, "connection refused"):
		return "unreachable (connection refused)"
	case strings.Contains(msg, "no such host"):
		return "unreachable (unknown host)"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() || strings.Contains(msg, "timeout"):
		return "unreachable (timed out)"
	case strings.Contains(msg, "EOF") || strings.Contains(msg, "broken pipe") || strings.Contains(msg, "reset by peer") ||
		strings.Contains(msg, "conn closed") || strings.Contains(msg, "invalid connection") || strings.Contains(msg, "bad connection"):
		return "the connection was lost"
	}
	return "cannot connect"
}
