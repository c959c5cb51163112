package pgtest

import (
	"os"
	"syscall"
)

// procAttr puts the server in its own process group, and a test binary
// killed on its timeout takes the server down too (runuser passes the
// SIGINT on: a fast shutdown).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
}

// interruptGroup sends SIGINT to the server's group (runuser passes it on).
func interruptGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGINT) }

func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
