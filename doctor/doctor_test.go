package doctor

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
)

func TestParseNetworkCell(t *testing.T) {
	ifaces, routes := parseNetworkCell("IFACES=lo\nROUTES=0\n")
	if len(ifaces) != 1 || ifaces[0] != "lo" || routes != 0 {
		t.Fatal(ifaces, routes)
	}
	ifaces, routes = parseNetworkCell("garbage")
	if ifaces != nil || routes != -1 {
		t.Fatal(ifaces, routes)
	}
}

// The doctor asks the terminal as the chat does and reports what it
// answered and why figures are drawn the way they are.
func TestProbeTerminalReplies(t *testing.T) {
	for _, c := range []struct {
		name, replies string
		want          []string
	}{
		{"xterm vt340", "\x1bP>|XTerm(379)\x1b\\\x1b[?1;0;1024S\x1b[?63;1;2;4;6;9;15;16;22;28c",
			[]string{"says it is XTerm(379)", "figures: sixel (the terminal reports Sixel graphics (device attribute 4))"}},
		{"kitty 0.26", "\x1bP>|kitty(0.26.5)\x1b\\\x1bP1+r6b697474792d71756572792d76657273696f6e=302e32362e35\x1b\\\x1b_Gi=31;OK\x1b\\\x1b[6;18;9t\x1b[?62;c",
			[]string{"says it is kitty(0.26.5)", "figures: blocks (kitty 0.26.5 draws no Unicode placeholders", "cells 9×18 pixels"}},
		{"silent", "", []string{"did not answer", "figures: blocks"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			go func() {
				w.WriteString(c.replies)
				if c.replies == "" {
					time.Sleep(300 * time.Millisecond)
				}
				w.Close()
			}()
			var asked strings.Builder
			env := map[string]string{"TERM": "xterm-256color"}
			term := probe(r, &asked, render.Terminal{Getenv: func(k string) string { return env[k] }}, 2*time.Second)
			if asked.String() != render.TerminalQueries {
				t.Errorf("asked %q", asked.String())
			}
			got := checkTerminal(config.Config{Images: "auto"}, true, term).Detail
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("detail lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
