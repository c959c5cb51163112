package config

import (
	"strings"
	"testing"
)

func TestParseDB(t *testing.T) {
	for _, c := range []struct{ arg, name, url, err string }{
		{"sales=postgres://a@db/sales", "sales", "postgres://a@db/sales", ""},
		{"postgres://a:pw@db:5432/sales-2026?sslmode=require", "sales-2026", "postgres://a:pw@db:5432/sales-2026?sslmode=require", ""},
		{"crm=host=db dbname=crm user=a password=x", "crm", "host=db dbname=crm user=a password=x", ""},
		{"host=db dbname=crm user=a", "crm", "host=db dbname=crm user=a", ""},
		{"postgres://a:Pa55word@db/", "", "", "no database name"},
		{"", "", "", "empty"},
	} {
		name, u, err := ParseDB(c.arg)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "Pa55word") {
				t.Errorf("ParseDB(%q) error %v, want one saying %q without the password", c.arg, err, c.err)
			}
		case err != nil || name != c.name || u != c.url:
			t.Errorf("ParseDB(%q) = %q, %q, %v; want %q, %q", c.arg, name, u, err, c.name, c.url)
		}
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
