package config

import (
	"strings"
	"testing"
)

// A URL of a kind quarry does not know is refused as the configuration
// loads, naming the kinds it knows, from the flag and from the file alike;
// so is a source name sql(db=) could not take.
func TestSourcesOfUnknownKindRefused(t *testing.T) {
	for _, c := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{DB: []string{"shop=mssql://a:Pa55word@db/shop"}}, "mssql:// is not a kind of database quarry reaches; it reaches postgres:// or postgresql:// (PostgreSQL), mysql:// or mariadb:// (MariaDB/MySQL)"},
		{Overrides{ConfigPath: writeFile(t, "[sources.shop]\nurl = \"sqlserver://a:Pa55word@db/shop\"\n")}, `source "shop": sqlserver:// is not a kind`},
		{Overrides{ConfigPath: writeFile(t, "[sources.\"my shop\"]\nurl = \"mysql://a@db/shop\"\n")}, `source name "my shop"`},
	} {
		_, err := Load(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Pa55word") {
			t.Errorf("Load(%+v): %v; want %q, no password", c.o, err, c.want)
		}
	}
	c, err := Load(Overrides{DB: []string{"mariadb://a:FlagPa55@localhost/shop?socket=/run/mysqld/mysqld.sock"}})
	if err != nil || c.Sources["shop"] == "" {
		t.Fatalf("a MariaDB URL: %v %v", c.Sources, err)
	}
}

func TestSourcesFromFileProfileAndFlag(t *testing.T) {
	path := writeFile(t, `profile = "work"
[sources.sales]
url = "postgres://analyst:FilePa55@db/sales"
[profiles.work.sources.crm]
url = "postgres://analyst@crm/crm"
`)
	c, err := Load(Overrides{ConfigPath: path, DB: []string{"postgres://a:FlagPa55@other/ledger"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 3 || c.Sources["sales"] == "" || c.Sources["crm"] == "" || c.Sources["ledger"] == "" {
		t.Fatalf("sources %v", c.Sources)
	}
	text := c.String()
	for _, l := range Describe(c) {
		text += l.Value
	}
	// The user name stays, as the chat, doctor and the record name a source.
	if !strings.Contains(text, "analyst:[hidden]@db/sales") || !strings.Contains(text, "postgres://analyst@crm/crm") {
		t.Errorf("the sources' user names are hidden too: %s", text)
	}
	for _, pw := range []string{"FilePa55", "FlagPa55"} {
		if strings.Contains(text, pw) {
			t.Errorf("a password is shown: %s", text)
		}
		if strings.Contains(c.Masker().Mask("connect failed for "+pw), pw) {
			t.Errorf("the masker does not hide %s", pw)
		}
	}
	if _, err := Load(Overrides{ConfigPath: writeFile(t, "[sources.sales]\nurl = \"postgres://a@db/sales\"\npasswd = \"x\"\n")}); err == nil || !strings.Contains(err.Error(), `unknown key "passwd" in source "sales"`) {
		t.Errorf("an unknown key in a source: %v", err)
	}
	if _, err := Load(Overrides{ConfigPath: writeFile(t, "[sources.sales]\nhost = \"db\"\n")}); err == nil || !strings.Contains(err.Error(), `source "sales" has no url`) {
		t.Errorf("a source without a url: %v", err)
	}
}
