//go:build unix && !linux

package pgtest

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func interruptGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGINT) }

func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
