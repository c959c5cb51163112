package ui

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The install question is its own prompt, asked whatever --confirm says:
// it shows the question whole, y adds, and anything else (enter, n, esc)
// says no, as [y/N] promises.
func TestInstallPrompt(t *testing.T) {
	q := "xgboost is in Debian (python3-xgboost 3.3.0, 3 packages, 12.9 MiB): add it to the sandbox? [y/N]"
	for key, want := range map[string]bool{"y": true, "Y": true, "n": false, "enter": false, "esc": false, "e": false} {
		m, _ := newTestModel(t, 60, 24, false)
		reply := make(chan confirmReply, 1)
		m.Update(inboxMsg{confirmRequest{install: q, reply: reply}})
		screen := strings.Join(strings.Fields(plain(m)), " ")
		if !strings.Contains(screen, "xgboost is in Debian (python3-xgboost 3.3.0, 3 packages, 12.9 MiB): add it to the sandbox? [y/N]") ||
			!strings.Contains(screen, "y add it") {
			t.Fatalf("the prompt at 60 columns:\n%s", plain(m))
		}
		m.Update(press(key))
		select {
		case r := <-reply:
			if r.run != want {
				t.Errorf("%s answered %v, want %v", key, r.run, want)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s gave no answer", key)
		}
		if m.confirm != nil {
			t.Fatalf("%s left the prompt open", key)
		}
	}
}

// Inbox.ConfirmInstall hands the question to the chat and returns its answer.
func TestConfirmInstallHook(t *testing.T) {
	ib := NewInbox()
	done := make(chan bool, 1)
	go func() {
		ok, _ := ib.ConfirmInstall(context.Background(), "add it? [y/N]")
		done <- ok
	}()
	req := (<-ib.ch).(confirmRequest)
	if req.install != "add it? [y/N]" {
		t.Fatalf("request %+v", req)
	}
	req.reply <- confirmReply{run: true}
	if !<-done {
		t.Fatal("yes was not returned")
	}
}
