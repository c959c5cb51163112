package source

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/source/sourcetest"
)

func TestParseFlag(t *testing.T) {
	for _, c := range []struct{ arg, name, url, err string }{
		{"sales=postgres://a@db/sales", "sales", "postgres://a@db/sales", ""},
		{"postgres://a:pw@db:5432/sales-2026?sslmode=require", "sales-2026", "postgres://a:pw@db:5432/sales-2026?sslmode=require", ""},
		{"crm=host=db dbname=crm user=a password=x", "crm", "host=db dbname=crm user=a password=x", ""},
		{"host=db dbname=crm user=a", "crm", "host=db dbname=crm user=a", ""},
		{"shop=mysql://a@db/shop", "shop", "mysql://a@db/shop", ""},
		{"mariadb://a:pw@localhost/shop?socket=/run/mysqld/mysqld.sock", "shop", "mariadb://a:pw@localhost/shop?socket=/run/mysqld/mysqld.sock", ""},
		{"MySQL://a@db/Shop", "Shop", "MySQL://a@db/Shop", ""},
		{"postgres://a:Pa55word@db/", "", "", "no database name"},
		{"", "", "", "empty"},
		{"x=mssql://a:Pa55word@db/x", "", "", "mssql:// is not a kind of database quarry reaches; it reaches postgres:// or postgresql:// (PostgreSQL), mysql:// or mariadb:// (MariaDB/MySQL)"},
		{"oracle://a:Pa55word@db/x", "", "", "oracle:// is not a kind"},
		{"sales=db.example.com", "", "", "not a database URL; write one of postgres://user@host/db or mysql://user@host/db"},
	} {
		spec, err := ParseFlag(c.arg)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "Pa55word") {
				t.Errorf("ParseFlag(%q) error %v, want one saying %q without the password", c.arg, err, c.err)
			}
		case err != nil || spec.Name != c.name || spec.URL != c.url:
			t.Errorf("ParseFlag(%q) = %+v, %v; want %q, %q", c.arg, spec, err, c.name, c.url)
		}
	}
}

// The name rule and its message say the same: a letter or '_' first, then
// letters, digits, '_' or '-', 63 at most.
func TestCheckName(t *testing.T) {
	for _, ok := range []string{"sales", "_raw", "Sales-2026", "a_b", strings.Repeat("x", 63)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "1sales", "-x", "my shop", "café", strings.Repeat("x", 64)} {
		err := CheckName(bad)
		if err == nil {
			t.Errorf("CheckName(%q) = nil, want an error", bad)
			continue
		}
		for _, want := range []string{"letters, digits, '_' or '-'", "starting with a letter or '_'", "at most 63"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("CheckName(%q) = %v, want it to say %q", bad, err, want)
			}
		}
	}
}

// Every kind in the table can be selected by each of its schemes, and
// opened without connecting.
func TestEveryKindParses(t *testing.T) {
	for _, k := range Kinds() {
		for _, scheme := range k.Schemes {
			u := strings.Replace(k.Example, strings.Split(k.Example, "://")[0], scheme, 1)
			got, err := KindOf(u)
			if err != nil || got != k {
				t.Errorf("KindOf(%q) = %v, %v; want %s", u, got, err, k.Name)
			}
			src, err := Parse(Spec{Name: "x", URL: u})
			if err != nil || src.Kind() != k || src.Name() != "x" || !strings.Contains(src.Where(), "user@") {
				t.Errorf("Parse(%q) = %v, %v", u, src, err)
			}
		}
	}
}

func TestMySQLURLRefusesUnknownParameters(t *testing.T) {
	for _, u := range []string{"mysql://a:Pa55word@db/x?allowAllFiles=true", "mysql://a@db/x?ssl-mode=sometimes", "mysql://a@db:port/x"} {
		_, err := Parse(Spec{Name: "x", URL: u})
		if err == nil || strings.Contains(err.Error(), "Pa55word") || !strings.Contains(err.Error(), "source x") {
			t.Errorf("Parse(%q): %v", u, err)
		}
	}
	src, err := Parse(Spec{Name: "x", URL: "mysql://a@db.example.com/x?ssl-mode=REQUIRED&connect_timeout=3"})
	if err != nil || src.Where() != "a@db.example.com:3306/x" {
		t.Fatalf("%v %v", src, err)
	}
	src, err = Parse(Spec{Name: "x", URL: "mariadb://a@localhost/x"})
	if err != nil || src.Where() != "a@"+myDefaultSocket+"/x" {
		t.Fatalf("localhost is the socket, as for the mysql client: %v %v", src, err)
	}
}

// Every kind of the table runs the shared cases (a row in sourcetest's
// Kinds, with a real server) and is in usage.md's table of kinds, by each
// of its schemes.
func TestEveryKindIsTested(t *testing.T) {
	usage, err := os.ReadFile("../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		tested := false
		for _, tk := range sourcetest.Kinds() {
			tested = tested || slices.Contains(k.Schemes, tk.Scheme)
		}
		if !tested {
			t.Errorf("kind %s has no row in sourcetest.Kinds: the shared cases do not run against it", k.Name)
		}
		for _, scheme := range k.Schemes {
			if !strings.Contains(string(usage), "`"+scheme+"://") {
				t.Errorf("docs/usage.md does not name %s:// (%s)", scheme, k.Name)
			}
		}
	}
}

// With no source connected, a name sql(db=) does not know says how to
// connect one of each kind.
func TestUnknownSourceNamesTheKinds(t *testing.T) {
	var none *Set
	_, err := none.Get("sales")
	if err == nil || !strings.Contains(err.Error(), `no database source named "sales"`) || !strings.Contains(err.Error(), "--db sales=URL, e.g. postgres://user@host/db or mysql://user@host/db") {
		t.Fatalf("%v", err)
	}
}
