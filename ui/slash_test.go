package ui

import (
	"os"
	"path/filepath"
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

// A file attached in the chat gets a line in the transcript, not only a
// chip; the files given at launch show as chips only.
func TestAttachSaysSoInTheTranscript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sales.csv")
	os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600)
	m, _ := newTestModel(t, 100, 30, true)
	if !strings.Contains(plain(m), "No files yet. Drop a file") {
		t.Fatalf("an empty chat says nothing about attaching:\n%s", plain(m))
	}
	typeText(m, "/attach "+p)
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
	s := plain(m)
	if !strings.Contains(s, "Attached sales.csv 12.1 KiB · 1,200 × 7") || strings.Contains(s, "No files yet") {
		t.Fatalf("after /attach:\n%s", s)
	}
}

// A command that takes no argument refuses one before doing anything:
// nothing is reset, taken back, cleared or quit, and the chat says why.
func TestSlashRefusesAnArgumentItDoesNotTake(t *testing.T) {
	for _, c := range slashCommands {
		if c.args != "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m, fb := newTestModel(t, 120, 30, true)
			conversation(m)
			blocks := len(m.transcript.blocks)
			run(t, m, c.name+" now")
			if !strings.Contains(plain(m), c.name+" takes no argument, and did nothing: type "+c.name+" alone") {
				t.Errorf("not refused:\n%s", plain(m))
			}
			if fb.resets != 0 || fb.undos != 0 || m.quitting || len(m.transcript.blocks) != blocks+1 {
				t.Errorf("%s now acted: resets %d, undos %d, quitting %v, blocks %d→%d", c.name, fb.resets, fb.undos, m.quitting, blocks, len(m.transcript.blocks))
			}
		})
	}
}
