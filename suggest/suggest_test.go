package suggest

import (
	"reflect"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2},
		{"sesions", "sessions", 1},
		{"exprot", "export", 1}, // a swap is one edit
		{"modle", "model", 1},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // runes, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cmds := []string{"sessions", "export", "rerun", "config", "sandbox", "doctor", "version", "man"}
	for _, c := range []struct {
		typed string
		max   int
		want  []string
	}{
		{"sesions", 0, []string{"sessions"}},
		{"SESIONS", 0, []string{"sessions"}},
		{"exprot", 0, []string{"export"}},
		{"conf", 0, []string{"config"}}, // a prefix
		{"sessions", 0, nil},            // exact: nothing to suggest
		{"Sessions", 0, []string{"sessions"}},
		{"budget_q1.csv", 0, nil},
		{"x", 0, nil},
		{"doctr", 1, []string{"doctor"}},
	} {
		if got := Nearest(c.typed, cmds, c.max); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("Nearest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
	if got := Nearest("bsh", []string{"bash", "zsh", "fish", "powershell"}, 0); !reflect.DeepEqual(got, []string{"bash", "zsh"}) {
		t.Errorf("only the nearest: %q", got)
	}
	if got := Nearest("mdel", []string{"max-steps", "model", "mode"}, 0); !reflect.DeepEqual(got, []string{"model"}) {
		t.Errorf("only the nearest: %q", got)
	}
}

func TestPhrase(t *testing.T) {
	if got := Phrase(nil, nil); got != "" {
		t.Errorf("no names: %q", got)
	}
	got := Phrase([]string{"model", "mode"}, func(s string) string { return "--" + s })
	if got != "did you mean --model or --mode?" {
		t.Errorf("Phrase: %q", got)
	}
}
