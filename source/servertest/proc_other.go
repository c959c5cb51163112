//go:build unix && !linux

package servertest

import (
	"os"
	"syscall"
)

func procAttr(syscall.Signal) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(p *os.Process, sig syscall.Signal) { syscall.Kill(-p.Pid, sig) }
