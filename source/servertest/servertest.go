// Package servertest runs a real database server process for tests, as
// pgtest and mariadbtest do: in a folder of its own under /tmp (a Unix
// socket's path is short), as the unprivileged user nobody when the tests
// run as root (the servers refuse root), in its own process group, stopped
// at the test's end and when the test binary dies.
//
// It imports nothing of quarry.
package servertest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Dir makes the server's folder, removed at the test's end. /tmp rather
// than TMPDIR: a socket path has at most 107 bytes, and nobody must reach
// the folder when root runs the tests.
func Dir(t testing.TB, prefix string) string {
	t.Helper()
	base := ""
	if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// RunAs is the user a server runs as: nobody under root, else "" (the
// test's own user).
func RunAs() string {
	if os.Geteuid() == 0 {
		return "nobody"
	}
	return ""
}

// Own makes folders, readable by all, and gives them to as.
func Own(as string, dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	if as == "" {
		return nil
	}
	u, err := user.Lookup(as)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range dirs {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// Command runs name as the user as ("" for the test's own).
func Command(as, name string, args ...string) *exec.Cmd {
	if as != "" {
		return exec.Command("runuser", append([]string{"-u", as, "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

// Proc is a running server.
type Proc struct {
	cmd    *exec.Cmd
	stop   syscall.Signal
	exited chan struct{}
	mu     sync.Mutex
	log    bytes.Buffer
}

// Start starts cmd in its own process group; stop is the signal that shuts
// the server down cleanly, also sent when the test binary dies.
func Start(cmd *exec.Cmd, stop syscall.Signal) (*Proc, error) {
	p := &Proc{cmd: cmd, stop: stop, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p, p
	cmd.SysProcAttr = procAttr(stop)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.Path, err)
	}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

func (p *Proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

// Log is what the server wrote on its stdout and stderr.
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Exited is closed when the server has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Wait calls ready until it succeeds, the server exits or within passes.
func (p *Proc) Wait(within time.Duration, ready func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %s: %v: %s", p.cmd.Path, within, err, p.Log())
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited: %s", p.cmd.Path, p.Log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop shuts the server down with its stop signal, killing it after 20
// seconds. Stopping twice is fine.
func (p *Proc) Stop() {
	if p == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	signalGroup(p.cmd.Process, p.stop)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		signalGroup(p.cmd.Process, syscall.SIGKILL)
		<-p.exited
	}
}

// Short is a statement cut to 200 bytes, for a failure message.
func Short(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return strings.TrimSpace(s)
}
