package secret

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Shapes are the keys of the providers quarry talks to, and keys with the
// characters that change under JSON and URL encoding.
var keyShapes = []string{
	"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
	"sk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0",
	"sk-0123456789abcdefghijklmnopqrstuvwxyzABCD",
	"gsk_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c",
	"xai-Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh",
	"0123456789abcdef0123456789abcdef", // Azure: 32 hex digits
	"AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
	"key+with/slash=and&amp<html>\"quote",
}

// TestKnownKeyHiddenInEveryEncoding: the key itself, inside JSON, inside a
// URL's user info or query, in a header, is gone from the text.
func TestKnownKeyHiddenInEveryEncoding(t *testing.T) {
	for _, key := range keyShapes {
		m := New(key)
		q, _ := json.Marshal(key)
		u := (&url.URL{Scheme: "http", User: url.User(key), Host: "127.0.0.1:1", Path: "/v1"}).String()
		texts := []string{
			"Incorrect API key provided: " + key + ".",
			`{"error":{"message":"bad key ` + string(q[1:len(q)-1]) + `"}}`,
			`Post "` + u + `/chat/completions": dial tcp 127.0.0.1:1: connect: connection refused`,
			"http://127.0.0.1:1/v1?api-key=" + url.QueryEscape(key),
			"Authorization: Bearer " + key,
		}
		for _, text := range texts {
			got := m.Mask(text)
			if strings.Contains(got, key) || strings.Contains(got, string(q[1:len(q)-1])) || strings.Contains(got, url.QueryEscape(key)) {
				t.Errorf("key %q in %q: masked to %q", key, text, got)
			}
			if !strings.Contains(got, Hidden) {
				t.Errorf("no %s in %q", Hidden, got)
			}
		}
	}
}

// TestUnknownCredentialsHidden: credentials quarry was never told about
// (a proxy's password, a server echoing another key) are hidden by shape.
func TestUnknownCredentialsHidden(t *testing.T) {
	var m *Masker // the shape rules alone
	for in, want := range map[string]string{
		"https://user:pa55word@host/v1":                      "https://[hidden]@host/v1",
		"http://sk-proj-abc123def456@127.0.0.1:1/v1":         "http://[hidden]@127.0.0.1:1/v1",
		"https://host/v1?api-key=s3cret&x=1":                 "https://host/v1?api-key=[hidden]&x=1",
		"https://host/v1?x=1&key=s3cret#frag":                "https://host/v1?x=1&key=[hidden]#frag",
		`parse "https://u:s3cret@h\x7f/v1": bad`:             `parse "https://[hidden]@h\x7f/v1": bad`,
		"headers: Authorization: Bearer abc.def.ghi":         "headers: Authorization: Bearer [hidden]",
		`{"api_key": "abcdef"}`:                              `{"api_key": "[hidden]"}`,
		"x-api-key=abcdef; next":                             "x-api-key=[hidden]; next",
		"http://127.0.0.1:11434/v1":                          "http://127.0.0.1:11434/v1",
		"https://host/v1?monkey=1":                           "https://host/v1?monkey=1",
		"mailto-like user@example.com stays":                 "mailto-like user@example.com stays",
		"sk-widget-blue sold 3 (data is not masked by Mask)": "sk-widget-blue sold 3 (data is not masked by Mask)",
	} {
		if got := m.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Incorrect API key provided: sk-anoth********0000.":                               "Incorrect API key provided: [hidden].",
		"key 0123456789abcdef0123456789abcdef rejected":                                   "key [hidden] rejected",
		"file quarterly_revenue_by_department_2024.csv":                                   "file quarterly_revenue_by_department_2024.csv",
		"/home/analyst/quarry-output/20260101-120000-a1b2c3":                              "/home/analyst/quarry-output/20260101-120000-a1b2c3",
		"abcdefghijklmnopqrstuvwxyzabcdefghij (a word)":                                   "abcdefghijklmnopqrstuvwxyzabcdefghij (a word)",
		"echo sk-proj-abcdefghijkl":                                                       "echo [hidden]",
		"pass show openai":                                                                "pass show openai",
		"export OPENAI_API_KEY=sk-... in your shell":                                      "export OPENAI_API_KEY=sk-... in your shell",
		"export OPENAI_API_KEY=s3cretvalue":                                               "export OPENAI_API_KEY=[hidden]",
		"/tmp/TestDoctorBadConfiguration3456789012/002/c.toml":                            "/tmp/TestDoctorBadConfiguration3456789012/002/c.toml",
		"container 4f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3 gone": "container 4f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3 gone",
		"mistral key Xk4PqR7sT2vW9yZ1bC3dF5gH8jK0mN6L":                                    "mistral key [hidden]",
	} {
		if got := m.MaskError(in); got != want {
			t.Errorf("MaskError(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFromURL: the credentials of a base URL become known secrets, so they
// are hidden also where they appear outside a URL.
func TestFromURL(t *testing.T) {
	base := "http://sk-proj-URLKEY42abc:p%40ss@127.0.0.1:1/v1?api-key=QUERYKEY9&x=1"
	got := FromURL(base)
	want := map[string]bool{"sk-proj-URLKEY42abc": true, "p@ss": true, "QUERYKEY9": true}
	if len(got) != len(want) {
		t.Fatalf("FromURL = %q", got)
	}
	for _, v := range got {
		if !want[v] {
			t.Errorf("FromURL: unexpected %q", v)
		}
	}
	m := New(got...)
	text := fmt.Sprintf("server said: key QUERYKEY9 and user sk-proj-URLKEY42abc and p@ss")
	if out := m.Mask(text); strings.Contains(out, "QUERYKEY9") || strings.Contains(out, "URLKEY42") || strings.Contains(out, "p@ss") {
		t.Errorf("Mask = %q", out)
	}
	if FromURL("http://127.0.0.1:11434/v1") != nil {
		t.Error("a URL without credentials has some")
	}
}

// TestShortValuesIgnored: a one-letter "key" would hide every such letter.
func TestShortValuesIgnored(t *testing.T) {
	if got := New("a", "").Mask("a banana"); got != "a banana" {
		t.Errorf("Mask = %q", got)
	}
}

func TestDatabasePasswordsMasked(t *testing.T) {
	for _, c := range []struct{ conn, password string }{
		{"postgres://analyst:s3cr%3At@db.example.com:5432/sales", "s3cr:t"},
		{"postgresql://analyst@db/sales?password=Pa55word&sslmode=require", "Pa55word"},
		{"host=db dbname=sales user=analyst password=Pa55word", "Pa55word"},
		{"host=db password='two words\\' here' dbname=sales", "two words' here"},
	} {
		got := FromDBURL(c.conn)
		found := false
		for _, v := range got {
			found = found || v == c.password
			if v == "analyst" {
				t.Errorf("%s: the user name is taken for a secret", c.conn)
			}
		}
		if !found {
			t.Errorf("FromDBURL(%q) = %q, want %q among them", c.conn, got, c.password)
		}
		msg := "connect " + c.conn + " failed; password=" + c.password
		if out := New(got...).Mask(msg); strings.Contains(out, c.password) {
			t.Errorf("Mask left the password in %q", out)
		}
	}
	if out := DSN("dbname=x password=hunter22 host=y"); out != "dbname=x password="+Hidden+" host=y" {
		t.Errorf("DSN = %q", out)
	}
}

// A source's URL keeps its user name, as the chat and doctor show it, and
// hides its password wherever it is written.
func TestDBURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://analyst:s3cr%40t@db.example/sales":         "postgres://analyst:[hidden]@db.example/sales",
		"postgres://analyst@db.example/sales":                  "postgres://analyst@db.example/sales",
		"mysql://ro@db/x?socket=/run/m.sock&password=hunter22": "mysql://ro@db/x?socket=/run/m.sock&password=[hidden]",
		"host=db user=analyst password='pa ss'":                "host=db user=analyst password=[hidden]",
		"postgres://db.example/sales":                          "postgres://db.example/sales",
		"postgres://a:b@c@d/e":                                 "postgres://a:[hidden]@d/e",
	} {
		if got := DBURL(in); got != want {
			t.Errorf("DBURL(%q) = %q, want %q", in, got, want)
		}
		for _, p := range []string{"s3cr", "hunter22", "pa ss", ":b@"} {
			if strings.Contains(DBURL(in), p) {
				t.Errorf("DBURL(%q) shows %q", in, p)
			}
		}
	}
}
