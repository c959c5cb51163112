// Package mariadbtest starts a real MariaDB server for tests: Debian's
// mariadb-server package, a data folder made by mariadb-install-db in a
// temporary folder, listening on a Unix socket only (--skip-networking),
// run as the unprivileged user nobody when the tests run as root (package
// servertest). Each server has a user with every privilege and a
// password, checked by the server, so tests see the authentication a
// real server asks for.
//
// It imports only hosttest and source/servertest of quarry.
package mariadbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/source/servertest"
)

// Server is one running server.
type Server struct {
	Dir      string // the server's folder (data, socket, log)
	Socket   string // the Unix socket
	User     string
	Password string
	asUser   string
	mariadbd string
	proc     *servertest.Proc
}

// Start makes and starts a server, stopped and removed at the test's end.
// Without MariaDB installed the test fails under CI=true and is skipped
// elsewhere.
func Start(t testing.TB) *Server {
	t.Helper()
	mariadbd := hosttest.Tool(t, "mariadbd")
	install := hosttest.Tool(t, "mariadb-install-db")
	dir := servertest.Dir(t, "quarry-my-")
	s := &Server{Dir: dir, Socket: filepath.Join(dir, "mysqld.sock"), User: "quarry", Password: randomPassword(),
		asUser: servertest.RunAs(), mariadbd: mariadbd} // mariadbd refuses root without --user
	// Its own temporary folder: servers of tests running at once in /tmp
	// have removed each other's temporary tables.
	data, tmp := filepath.Join(dir, "data"), filepath.Join(dir, "tmp")
	if err := servertest.Own(s.asUser, dir, data, tmp); err != nil {
		t.Fatal(err)
	}
	out, err := servertest.Command(s.asUser, install, "--no-defaults", "--datadir="+data, "--tmpdir="+tmp, "--skip-test-db",
		"--skip-name-resolve", "--auth-root-authentication-method=socket").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-install-db: %v: %s", err, out)
	}
	// The user comes from an init file read at the first start only.
	initSQL := filepath.Join(dir, "init.sql")
	grant := fmt.Sprintf("CREATE USER '%s'@'localhost' IDENTIFIED BY '%s';\nGRANT ALL PRIVILEGES ON *.* TO '%s'@'localhost' WITH GRANT OPTION;\n",
		s.User, s.Password, s.User)
	if err := os.WriteFile(initSQL, []byte(grant), 0o644); err != nil {
		t.Fatal(err)
	}
	err = s.start("--init-file=" + initSQL)
	os.Remove(initSQL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// randomPassword has the characters that change under URL encoding.
func randomPassword() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "pw:" + hex.EncodeToString(b) + "/x@y%"
}

func (s *Server) start(extra ...string) error {
	args := append([]string{"--no-defaults", "--datadir=" + filepath.Join(s.Dir, "data"), "--tmpdir=" + filepath.Join(s.Dir, "tmp"), "--socket=" + s.Socket,
		"--skip-networking", "--pid-file=" + filepath.Join(s.Dir, "mariadbd.pid"), "--log-error=" + filepath.Join(s.Dir, "error.log"),
		"--skip-name-resolve", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci",
		"--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=0",
		"--performance-schema=OFF", "--max-connections=50", "--secure-file-priv=" + s.Dir}, extra...)
	p, err := servertest.Start(servertest.Command(s.asUser, s.mariadbd, args...), syscall.SIGTERM)
	if err != nil {
		return err
	}
	s.proc = p
	err = p.Wait(30*time.Second, func() error {
		db, err := s.open("")
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return db.PingContext(ctx)
	})
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.Dir, "error.log"))
		return fmt.Errorf("%v\n%s", err, log)
	}
	return nil
}

// Stop shuts the server down (SIGTERM: a clean shutdown, sessions are
// ended). Stopping twice is fine.
func (s *Server) Stop() { s.proc.Stop() }

// Restart starts a stopped server again on the same data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// URL is a mysql:// URL for database db over the socket, with the
// password in it.
func (s *Server) URL(db string) string { return s.URLWith(db, s.Password) }

// URLWith is URL with another password ("" for none).
func (s *Server) URLWith(db, password string) string {
	u := &url.URL{Scheme: "mysql", User: url.UserPassword(s.User, password), Host: "localhost", Path: "/" + db,
		RawQuery: url.Values{"socket": {s.Socket}}.Encode()}
	if password == "" {
		u.User = url.User(s.User)
	}
	return u.String()
}

func (s *Server) open(db string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = s.User, s.Password, "unix", s.Socket, db
	cfg.MultiStatements = true
	cfg.Logger = quiet{}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

type quiet struct{}

func (quiet) Print(...any) {}

// CreateDB makes a database (utf8mb4) and returns its URL.
func (s *Server) CreateDB(t testing.TB, name string) string {
	t.Helper()
	s.Exec(t, "", "CREATE DATABASE "+Quote(name)+" CHARACTER SET utf8mb4")
	return s.URL(name)
}

// Quote quotes a name for MariaDB's SQL.
func Quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// Exec runs SQL (statements separated by ';') as the user in database db
// ("" for none).
func (s *Server) Exec(t testing.TB, db, query string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := s.open(db)
	if err != nil {
		t.Fatalf("mariadbtest connect: %v", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("mariadbtest exec %q: %v", servertest.Short(query), err)
	}
}

// QueryInt runs a query returning one integer.
func (s *Server) QueryInt(t testing.TB, db, query string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := s.open(db)
	if err != nil {
		t.Fatalf("mariadbtest connect: %v", err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("mariadbtest query %q: %v", servertest.Short(query), err)
	}
	return n
}
