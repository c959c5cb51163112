package servertest

import (
	"os"
	"syscall"
)

// Debian's database servers are not on Windows: their tests skip there;
// these keep the package building.
func procAttr(syscall.Signal) *syscall.SysProcAttr { return nil }

func signalGroup(p *os.Process, _ syscall.Signal) { p.Kill() }
