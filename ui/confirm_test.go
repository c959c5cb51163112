package ui

import (
	"strings"
	"testing"
)

// TestConfirmEditRunsEditedCode presses e: the cell is written to a file,
// $EDITOR (here a shell command that rewrites it) runs on it, and the
// edited code is what runs. Bubble Tea's ExecProcess, which hands the
// terminal to the editor, is replaced by running the command directly.
func TestConfirmEditRunsEditedCode(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	m.opts.Getenv = func(k string) string {
		if k == "EDITOR" {
			return `sh -c 'printf "print(2)\n" > "$0"'`
		}
		return ""
	}
	reply := make(chan confirmReply, 1)
	m.Update(inboxMsg{confirmRequest{cell: 3, code: "print(1)", reply: reply}})
	_, cmd := m.Update(press("e"))
	ready, ok := cmd().(editorReadyMsg)
	if !ok || ready.err != nil {
		t.Fatalf("e did not prepare the file: %#v", ready)
	}
	if s := plain(m); !strings.Contains(s, "editing…") {
		t.Fatalf("prompt does not say it is editing:\n%s", s)
	}
	if _, cmd := m.Update(ready); cmd == nil {
		t.Fatal("no editor command")
	}
	err := editorCommand(m.opts.Getenv, ready.path).Run()
	m.Update(readEdited(ready.path, err))
	select {
	case r := <-reply:
		if !r.run || r.code != "print(2)\n" {
			t.Fatalf("reply %+v, want the edited code to run", r)
		}
	default:
		t.Fatal("no reply after editing")
	}
	if m.confirm != nil {
		t.Fatal("prompt still open")
	}
}

func TestConfirmSkip(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	reply := make(chan confirmReply, 1)
	m.Update(inboxMsg{confirmRequest{cell: 1, code: "rm()", reply: reply}})
	m.Update(press("n"))
	if r := <-reply; r.run {
		t.Fatal("n ran the cell")
	}
}
