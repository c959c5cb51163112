package source

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quarry-cli/quarry/secret"
)

// mySource is one live MariaDB or MySQL database, reached with
// go-sql-driver/mysql on one connection of its own (no pool). A stopped
// query is killed from a second connection (KILL QUERY), so the first
// stays usable.
type mySource struct {
	kind      *Kind
	spec      Spec
	cfg       *mysql.Config
	connector driver.Connector
	pwFrom    string // where the password came from: the URL, ~/.my.cnf, MYSQL_PWD; "" for none
	masker    *secret.Masker

	mu   sync.Mutex // one statement at a time on conn
	conn *myConn
	// server is what the server reported at the last connect; read
	// without mu, so the chat may ask while a query runs.
	server atomic.Pointer[myServer]
}

// myServer is the product (MariaDB or MySQL, from the version the server
// reports) and its version.
type myServer struct{ product, version string }

// myConn is the source's connection and its id on the server, which KILL
// QUERY names.
type myConn struct {
	c  driver.Conn
	id uint64
}

// myDefaultSocket is where Debian's MariaDB and MySQL listen.
const myDefaultSocket = "/run/mysqld/mysqld.sock"

// myParams are the URL's parameters quarry reads; any other is refused,
// so a driver option (allowAllFiles=…) cannot come in through the URL.
var myParams = []string{"socket", "ssl-mode", "tls", "connect_timeout"}

// parseMySQL reads a mysql:// or mariadb:// URL without connecting. The
// user, password, host, port and socket it lacks come from ~/.my.cnf, then
// the environment (MYSQL_PWD, MYSQL_UNIX_PORT, MYSQL_TCP_PORT), as the
// mysql client finds them; localhost means the Unix socket, as there.
func parseMySQL(k *Kind, spec Spec) (Source, error) {
	fail := func(format string, a ...any) (Source, error) {
		return nil, fmt.Errorf("source %s: %s", spec.Name, maskSpec(fmt.Sprintf(format, a...)))
	}
	u, err := url.Parse(strings.TrimSpace(spec.URL))
	if err != nil {
		return fail("the URL does not parse (write %s)", k.Example)
	}
	q := u.Query()
	for k := range q {
		if !slices.Contains(myParams, k) {
			return fail("unknown parameter %q in the URL; a MariaDB/MySQL URL takes %s", clip(k, 30), strings.Join(myParams, ", "))
		}
	}
	cnf := readMyCnf()
	cfg := mysql.NewConfig()
	cfg.Logger = quietLogger{}
	cfg.Timeout = 10 * time.Second
	cfg.Loc = time.UTC
	cfg.ConnectionAttributes = "program_name:quarry"
	s := &mySource{kind: k, spec: spec, cfg: cfg}

	cfg.User = u.User.Username()
	if cfg.User == "" {
		cfg.User = cnf.user
	}
	if cfg.User == "" {
		cfg.User = loginName()
	}
	if p, ok := u.User.Password(); ok {
		cfg.Passwd, s.pwFrom = p, "the URL"
	} else if cnf.hasPassword {
		cfg.Passwd, s.pwFrom = cnf.password, cnf.path
	} else if p, ok := os.LookupEnv("MYSQL_PWD"); ok {
		cfg.Passwd, s.pwFrom = p, "MYSQL_PWD"
	}
	cfg.DBName, _ = url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/"))

	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = cnf.host
	}
	socket := q.Get("socket")
	if socket == "" && (host == "" || host == "localhost") {
		socket = firstOf(cnf.socket, os.Getenv("MYSQL_UNIX_PORT"), myDefaultSocket)
	}
	if socket != "" {
		cfg.Net, cfg.Addr = "unix", socket
	} else {
		port = firstOf(port, cnf.port, os.Getenv("MYSQL_TCP_PORT"), "3306")
		if _, err := strconv.Atoi(port); err != nil {
			return fail("port %q is not a number", clip(port, 10))
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
		cfg.TLSConfig = "preferred" // as the client's ssl-mode=PREFERRED
	}
	if err := myTLS(cfg, q); err != nil {
		return fail("%v", err)
	}
	if t := q.Get("connect_timeout"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return fail("connect_timeout=%q: give seconds, e.g. connect_timeout=10", clip(t, 10))
		}
		cfg.Timeout = time.Duration(n) * time.Second
	}
	if s.connector, err = mysql.NewConnector(cfg); err != nil {
		return fail("%v", err)
	}
	s.masker = secret.New(s.Secrets()...)
	return s, nil
}

// myTLS reads ssl-mode (the client's words) or tls (the driver's).
func myTLS(cfg *mysql.Config, q url.Values) error {
	if m := q.Get("ssl-mode"); m != "" {
		modes := map[string]string{"disabled": "false", "preferred": "preferred", "required": "skip-verify",
			"verify_ca": "true", "verify_identity": "true"}
		v, ok := modes[strings.ToLower(m)]
		if !ok {
			return fmt.Errorf("ssl-mode=%q: use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY", clip(m, 20))
		}
		cfg.TLSConfig = v
	}
	if t := q.Get("tls"); t != "" {
		if !slices.Contains([]string{"true", "false", "skip-verify", "preferred"}, t) {
			return fmt.Errorf("tls=%q: use true, false, skip-verify or preferred", clip(t, 20))
		}
		cfg.TLSConfig = t
	}
	if cfg.Net == "unix" && cfg.TLSConfig == "preferred" {
		cfg.TLSConfig = ""
	}
	return nil
}

func (s *mySource) Name() string { return s.spec.Name }

func (s *mySource) Kind() *Kind { return s.kind }

func (s *mySource) Server() string {
	v := s.server.Load()
	if v == nil {
		return s.kind.Name
	}
	return v.product + " " + v.version
}

// Where: "analyst@db.example.com:3306/sales", "quarry@/run/mysqld/mysqld.sock/sales".
func (s *mySource) Where() string {
	return s.masker.Mask(fmt.Sprintf("%s@%s/%s", s.cfg.User, s.cfg.Addr, s.cfg.DBName))
}

// Secrets: the password found outside the URL too (~/.my.cnf, MYSQL_PWD).
func (s *mySource) Secrets() []string {
	out := secret.FromDBURL(s.spec.URL)
	if s.cfg.Passwd != "" {
		out = append(out, s.cfg.Passwd)
	}
	return out
}

func (s *mySource) Check(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.connLocked(ctx)
	if err != nil {
		return err
	}
	err = myExec(ctx, c.c, "START TRANSACTION READ ONLY")
	if err == nil {
		_, err = myQueryRow(ctx, c.c, "SELECT 1")
		myExec(ctx, c.c, "ROLLBACK")
	}
	if err != nil {
		s.dropLocked()
		return s.failure(fmt.Errorf("a read-only transaction failed: %w", err))
	}
	return nil
}

// connLocked returns the connection, made again when it was lost: every
// transaction of the session is read-only, timestamps are in UTC.
func (s *mySource) connLocked(ctx context.Context) (*myConn, error) {
	if s.conn != nil {
		if r, ok := s.conn.c.(driver.SessionResetter); !ok || r.ResetSession(ctx) == nil {
			return s.conn, nil
		}
		s.dropLocked()
	}
	c, err := s.connector.Connect(ctx)
	if err != nil {
		return nil, s.failure(err)
	}
	mc := &myConn{c: c}
	err = myExec(ctx, c, "SET SESSION TRANSACTION READ ONLY")
	if err == nil {
		err = myExec(ctx, c, "SET time_zone = '+00:00'")
	}
	var row []string
	if err == nil {
		row, err = myQueryRow(ctx, c, "SELECT CONNECTION_ID(), VERSION()")
	}
	if err != nil {
		c.Close()
		return nil, s.failure(err)
	}
	mc.id, _ = strconv.ParseUint(row[0], 10, 64)
	product, version := myProduct(row[1])
	s.server.Store(&myServer{product, version})
	s.conn = mc
	return mc, nil
}

// myProduct reads VERSION(): "10.11.19-MariaDB-0+deb12u1" is MariaDB
// 10.11.19, "8.4.1" MySQL 8.4.1.
func myProduct(v string) (product, version string) {
	num, rest, _ := strings.Cut(v, "-")
	if strings.Contains(strings.ToLower(rest), "mariadb") {
		return "MariaDB", num
	}
	return "MySQL", v
}

func (s *mySource) mariadb() bool {
	v := s.server.Load()
	return v != nil && v.product == "MariaDB"
}

func (s *mySource) dropLocked() {
	if s.conn != nil {
		s.conn.c.Close()
		s.conn = nil
	}
}

func (s *mySource) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked()
}

// kill stops the statement running on connection id, from a connection
// of its own.
func (s *mySource) kill(id uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := s.connector.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return myExec(ctx, c, fmt.Sprintf("KILL QUERY %d", id))
}

// failure words a connection failure: the source, the reason in plain
// words, the server's or the system's own text, masked.
func (s *mySource) failure(err error) error {
	return s.masker.WrapError(fmt.Errorf("source %s (%s): %s: %w", s.spec.Name, s.Where(), s.reason(err), err))
}

// reason names the cause of a failure to reach a MariaDB/MySQL source.
func (s *mySource) reason(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045:
			if strings.Contains(me.Message, "using password: NO") {
				return "no password (give it in " + s.kind.Passwords + ")"
			}
			if s.pwFrom != "the URL" && s.pwFrom != "" {
				return "wrong password (from " + s.pwFrom + ")"
			}
			return "wrong password"
		case 1044, 1227:
			return "the server refused the user"
		case 1049:
			return "no such database"
		case 1040, 1203:
			return "the server has no free connections"
		case 1129, 1130:
			return "the server refused this host"
		case 1053, 1927:
			return "the server is shutting down"
		}
		return "the server refused"
	}
	if errors.Is(err, mysql.ErrNativePassword) || errors.Is(err, mysql.ErrCleartextPassword) || errors.Is(err, mysql.ErrOldPassword) ||
		strings.Contains(err.Error(), "unknown auth plugin") {
		return "the server asks for a way of signing in quarry does not use"
	}
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) {
		return "the connection was lost"
	}
	return netReason(err, s.kind.Passwords)
}

// myExec runs a statement without rows.
func myExec(ctx context.Context, c driver.Conn, query string) error {
	_, err := c.(driver.ExecerContext).ExecContext(ctx, query, nil)
	return err
}

// myQueryRow reads the first row of a query as text.
func myQueryRow(ctx context.Context, c driver.Conn, query string) ([]string, error) {
	rows, err := c.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(vals); err != nil {
		if err == io.EOF {
			return nil, errors.New("no row")
		}
		return nil, err
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = myText(v)
	}
	return out, nil
}

// myText is a value of the text protocol as text; NULL is "".
func myText(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return string(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// quietLogger keeps the driver's log lines (a closed idle connection) off
// the chat's screen: quarry reports failures itself.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

var _ mysql.Logger = quietLogger{}

func loginName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return firstOf(os.Getenv("USER"), os.Getenv("LOGNAME"))
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
