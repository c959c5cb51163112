package cli

import (
	"bytes"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// slowCloser stands in for the session: removing a container takes a while.
type slowCloser struct {
	d      time.Duration
	closed atomic.Bool
}

func (s *slowCloser) Close() error {
	time.Sleep(s.d)
	s.closed.Store(true)
	return nil
}

// TestCloseSandboxSurvivesInterrupt: after the chat, the terminal is in
// cooked mode again; an impatient Ctrl+C (SIGINT) or a hang-up while the
// container is removed must not kill quarry and leave the container behind.
func TestCloseSandboxSurvivesInterrupt(t *testing.T) {
	c := &slowCloser{d: 600 * time.Millisecond}
	var out bytes.Buffer
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
	}()
	closeSandbox(c, &out, 10*time.Second)
	if !c.closed.Load() {
		t.Fatal("closeSandbox returned before the sandbox was removed")
	}
	if !strings.Contains(out.String(), "still removing the sandbox") {
		t.Errorf("the interrupt was not acknowledged:\n%s", out.String())
	}
}

// TestCloseSandboxGivesUpAfterTimeout: a hung engine does not hang quarry.
func TestCloseSandboxGivesUpAfterTimeout(t *testing.T) {
	var out bytes.Buffer
	closeSandbox(&slowCloser{d: 5 * time.Second}, &out, 100*time.Millisecond)
	if !strings.Contains(out.String(), "next quarry run sweeps it") {
		t.Errorf("no timeout message:\n%s", out.String())
	}
}
