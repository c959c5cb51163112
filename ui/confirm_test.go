package ui

import (
	"context"
	"errors"
	"os"
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

// TestConfirmCancelBeatsSkip: Esc cancels the turn and answers "skip" so
// the hook is released; the hook must report the cancellation, not a skip
// the agent would pass on to the model. (When both are ready before the
// hook waits, select picks at random: Confirm checks ctx after the reply.)
func TestConfirmCancelBeatsSkip(t *testing.T) {
	for i := 0; i < 50; i++ {
		ib := NewInbox()
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			run bool
			err error
		}
		done := make(chan result, 1)
		go func() {
			_, run, err := ib.Confirm(ctx, 1, "print(1)")
			done <- result{run, err}
		}()
		req := (<-ib.ch).(confirmRequest)
		cancel()
		req.reply <- confirmReply{}
		if r := <-done; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("try %d: Confirm returned run=%v err=%v, want context.Canceled", i, r.run, r.err)
		}
	}
}

// TestConfirmEditFileRemovedWhenPromptGone: the turn ended while the file
// for the editor was being written; the file must not be left in $TMPDIR.
func TestConfirmEditFileRemovedWhenPromptGone(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	m, _ := newTestModel(t, 80, 24, true)
	m.Update(inboxMsg{confirmRequest{cell: 3, code: "print(1)", reply: make(chan confirmReply, 1)}})
	_, cmd := m.Update(press("e"))
	ready := cmd().(editorReadyMsg)
	m.Update(inboxMsg{turnEndMsg{turn: m.turn, err: context.Canceled}})
	_, cmd = m.Update(ready)
	drain(t, m, cmd)
	if _, err := os.Stat(ready.path); !os.IsNotExist(err) {
		t.Fatalf("%s left behind (stat: %v)", ready.path, err)
	}
}
