package source

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

// The password is found as the mysql client finds it: the URL first, then
// the [client] section of ~/.my.cnf, then MYSQL_PWD; a world-writable
// ~/.my.cnf is ignored, as the client ignores it. Wherever it came from,
// it is among the source's secrets and in no text the source gives.
func TestMariaDBPasswordFromMyCnfAndMYSQL_PWD(t *testing.T) {
	srv := sourcetest.Kinds()[1].Start(t)
	srv.CreateDB(t, "sales")
	home := t.TempDir()
	t.Setenv("HOME", home)
	cnf := filepath.Join(home, ".my.cnf")
	write := func(text string, perm os.FileMode) {
		t.Helper()
		if err := os.WriteFile(cnf, []byte(text), perm); err != nil {
			t.Fatal(err)
		}
		os.Chmod(cnf, perm)
	}
	quoted := "'" + srv.Password + "'"
	for _, c := range []struct {
		name, cnf, pwd string
		perm           os.FileMode
		works          bool
		reason         string
	}{
		{"~/.my.cnf [client]", "# mine\n[mysqld]\npassword = nope\n[client]\npassword = " + quoted + "\n", "", 0o600, true, ""},
		{"~/.my.cnf [mysql] over [client]", "[client]\npassword=wrong\n[mysql]\npassword=" + quoted + " # the real one\n", "", 0o600, true, ""},
		{"~/.my.cnf before MYSQL_PWD", "[client]\npassword=" + quoted + "\n", "wrong-one", 0o600, true, ""},
		{"MYSQL_PWD", "", srv.Password, 0o600, true, ""},
		{"world-writable ~/.my.cnf ignored", "[client]\npassword=" + quoted + "\n", "", 0o666, false, "no password"},
		{"wrong in ~/.my.cnf", "[client]\npassword=Wr0ng-in-cnf\n", "", 0o600, false, "wrong password (from ~/.my.cnf)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(cnf)
			if c.cnf != "" {
				write(c.cnf, c.perm)
			}
			if c.pwd != "" {
				t.Setenv("MYSQL_PWD", c.pwd)
			} else {
				os.Unsetenv("MYSQL_PWD")
			}
			src, err := Open(context.Background(), Spec{Name: "sales", URL: srv.URLWith("sales", "")})
			if !c.works {
				if err == nil || !strings.Contains(err.Error(), c.reason) || strings.Contains(err.Error(), "Wr0ng-in-cnf") {
					t.Fatalf("error %v, want %q without the password", err, c.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			found := false
			for _, s := range src.Secrets() {
				found = found || s == srv.Password
			}
			if !found || strings.Contains(src.Where(), srv.Password) || !strings.HasPrefix(src.Where(), "quarry@/") {
				t.Errorf("secrets hold the password: %v; Where %q", found, src.Where())
			}
		})
	}
}

func TestMyCnfValues(t *testing.T) {
	o := parseMyCnf(bufio.NewScanner(strings.NewReader(`
[client]
user = analyst
password = "with # hash and \"quote"
socket=/run/x.sock   # a comment
host = db
[mysqld]
user = mysql
[client-mariadb]
port = 3307
!includedir /etc/mysql/conf.d/
`)))
	if o.user != "analyst" || o.password != `with # hash and "quote` || !o.hasPassword || o.socket != "/run/x.sock" || o.host != "db" || o.port != "3307" {
		t.Fatalf("%+v", o)
	}
	if v := myValue(`a\sb\\c\td`); v != "a b\\c\td" {
		t.Fatalf("escapes: %q", v)
	}
}
