package engine

import "testing"

func TestParseServer(t *testing.T) {
	for h, want := range map[string][2]string{
		"Docker/20.10.24+dfsg1 (linux)": {"Docker", "20.10.24+dfsg1"},
		"Libpod/4.3.1 (linux)":          {"Libpod", "4.3.1"},
		"Docker/28.0.1":                 {"Docker", "28.0.1"},
		"":                              {"", ""},
		"nginx":                         {"", ""},
	} {
		if p, v := parseServer(h); p != want[0] || v != want[1] {
			t.Errorf("parseServer(%q) = %q, %q; want %q, %q", h, p, v, want[0], want[1])
		}
	}
}
