// Package pgtest starts a real PostgreSQL server for tests: Debian's
// postgresql package, a cluster made by initdb in a temporary folder,
// listening on a Unix socket only (no TCP port), run as the unprivileged
// user nobody when the tests run as root (package servertest). Each server has a superuser with
// a password, checked with SCRAM, so tests see the same authentication a
// real server asks for.
//
// It imports only hosttest and source/servertest of quarry.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/source/servertest"
)

// Server is one running cluster.
type Server struct {
	Dir      string // the cluster's folder (data and socket)
	Socket   string // the folder holding the Unix socket
	User     string
	Password string
	bin      string
	asUser   string // run as this user (root runs the server as nobody)
	proc     *servertest.Proc
}

// Bin finds the folder of Debian's PostgreSQL programs, the newest version
// first; empty when the package is not installed.
func Bin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start makes and starts a server, stopped and removed at the test's end.
// Without PostgreSQL installed the test fails under CI=true and is skipped
// elsewhere.
func Start(t testing.TB) *Server {
	t.Helper()
	hosttest.Path(t, "/usr/lib/postgresql/*/bin/postgres")
	bin := Bin()
	dir := servertest.Dir(t, "quarry-pg-")
	s := &Server{Dir: dir, Socket: filepath.Join(dir, "sock"), User: "quarry", Password: randomPassword(), bin: bin,
		asUser: servertest.RunAs()} // initdb and postgres refuse to run as root
	if err := s.init(); err != nil {
		t.Fatal(err)
	}
	if err := s.start(); err != nil {
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

func (s *Server) init() error {
	if err := servertest.Own(s.asUser, s.Dir, s.Socket); err != nil {
		return err
	}
	pwfile := filepath.Join(s.Dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o644); err != nil {
		return err
	}
	data := filepath.Join(s.Dir, "data")
	if err := servertest.Own(s.asUser, data); err != nil {
		return err
	}
	if err := os.Chmod(data, 0o700); err != nil {
		return err
	}
	out, err := servertest.Command(s.asUser, filepath.Join(s.bin, "initdb"), "-D", data, "-U", s.User, "--pwfile", pwfile,
		"--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync").CombinedOutput()
	os.Remove(pwfile)
	if err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	conf := "listen_addresses = ''\nunix_socket_directories = '" + s.Socket + "'\nfsync = off\nmax_connections = 50\n"
	return os.WriteFile(filepath.Join(data, "postgresql.auto.conf"), []byte(conf), 0o600)
}

func (s *Server) start() error {
	p, err := servertest.Start(servertest.Command(s.asUser, filepath.Join(s.bin, "postgres"), "-D", filepath.Join(s.Dir, "data")), syscall.SIGINT)
	if err != nil {
		return err
	}
	s.proc = p
	return p.Wait(30*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			c.Close(context.Background())
		}
		return err
	})
}

// Stop shuts the server down (SIGINT: a fast shutdown, sessions are
// ended). Stopping twice is fine.
func (s *Server) Stop() { s.proc.Stop() }

// Restart starts a stopped server again on the same cluster.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// URL is a postgres:// URL for database db over the socket, with the
// password in it.
func (s *Server) URL(db string) string {
	return s.URLWith(db, s.Password)
}

// URLWith is URL with another password ("" for none).
func (s *Server) URLWith(db, password string) string {
	u := &url.URL{Scheme: "postgres", User: url.UserPassword(s.User, password), Path: "/" + db,
		RawQuery: url.Values{"host": {s.Socket}, "sslmode": {"disable"}}.Encode()}
	if password == "" {
		u.User = url.User(s.User)
	}
	return u.String()
}

// CreateDB makes a database and returns its URL.
func (s *Server) CreateDB(t testing.TB, name string) string {
	t.Helper()
	s.Exec(t, "postgres", "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return s.URL(name)
}

// Exec runs SQL as the superuser in database db.
func (s *Server) Exec(t testing.TB, db, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL(db))
	if err != nil {
		t.Fatalf("pgtest connect: %v", err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("pgtest exec %q: %v", servertest.Short(sql), err)
	}
}

// QueryInt runs a query returning one integer.
func (s *Server) QueryInt(t testing.TB, db, sql string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL(db))
	if err != nil {
		t.Fatalf("pgtest connect: %v", err)
	}
	defer c.Close(context.Background())
	var n int64
	if err := c.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("pgtest query %q: %v", servertest.Short(sql), err)
	}
	return n
}
