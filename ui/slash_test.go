package ui

import (
	"strings"
	"testing"
)

// The command table is the one list: /help shows every row, every name
// and alias dispatches, and a near miss of any of them is suggested.
func TestSlashTableIsTheOneList(t *testing.T) {
	help := helpText()
	for _, c := range slashCommands {
		if !strings.Contains(help, c.name) || !strings.Contains(help, c.help) {
			t.Errorf("/help lacks %s", c.name)
		}
		if c.run == nil {
			t.Errorf("%s has no handler", c.name)
		}
		for _, n := range append([]string{c.name}, c.aliases...) {
			if got, ok := lookupSlash(n); !ok || got.name != c.name {
				t.Errorf("%s does not dispatch to %s", n, c.name)
			}
		}
	}
	m, _ := newTestModel(t, 120, 30, true)
	for _, c := range slashCommands {
		if len(c.name) < 5 {
			continue
		}
		typo := c.name[:len(c.name)-2] + c.name[len(c.name)-1:] // /sourcs, /attah…
		if _, ok := lookupSlash(typo); ok {
			continue
		}
		typeText(m, typo)
		_, cmd := m.Update(press("enter"))
		drain(t, m, cmd)
		if want := "did you mean " + c.name + "?"; !strings.Contains(plain(m), want) {
			t.Errorf("%s: want %q in\n%s", typo, want, plain(m))
		}
	}
}
