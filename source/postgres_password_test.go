package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/pgtest"
)

// The password is found as psql finds it: ~/.pgpass (PGPASSFILE) and a
// service file (PGSERVICEFILE) here; the URL and PGPASSWORD in cli's test.
// Either way it is among the source's secrets, so the masker hides it.
func TestPasswordFromPgpassAndServiceFile(t *testing.T) {
	srv := pgtest.Start(t)
	srv.CreateDB(t, "sales")
	dir := t.TempDir()
	esc := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(srv.Password)
	pgpass := filepath.Join(dir, "pgpass")
	os.WriteFile(pgpass, []byte("localhost:*:sales:"+srv.User+":"+esc+"\n"), 0o600)
	service := filepath.Join(dir, "services")
	os.WriteFile(service, []byte("[salesdb]\nhost="+srv.Socket+"\ndbname=sales\nuser="+srv.User+"\nsslmode=disable\n"), 0o600)
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", pgpass)
	t.Setenv("PGSERVICEFILE", service)
	for _, spec := range []Spec{
		{Name: "sales", URL: srv.URLWith("sales", "")},
		{Name: "sales", URL: "service=salesdb"},
	} {
		src, err := Open(context.Background(), spec)
		if err != nil {
			t.Fatalf("%s: %v", spec.URL, err)
		}
		found := false
		for _, s := range src.Secrets() {
			found = found || s == srv.Password
		}
		if !found {
			t.Errorf("%s: the password from the pgpass file is not among the secrets", spec.URL)
		}
		if strings.Contains(src.Where(), srv.Password) {
			t.Errorf("Where shows the password: %s", src.Where())
		}
		src.Close()
	}
}
