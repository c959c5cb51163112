package pgtest

import (
	"os"
	"syscall"
)

// Debian's PostgreSQL is not on Windows: Start skips there; these keep
// the package building.
func procAttr() *syscall.SysProcAttr { return nil }

func interruptGroup(p *os.Process) { p.Kill() }

func killGroup(p *os.Process) { p.Kill() }
