package servertest

import (
	"os"
	"syscall"
)

// procAttr puts the server in its own process group, and a test binary
// killed on its timeout takes the server down too: stop reaches runuser,
// which passes it on.
func procAttr(stop syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: stop}
}

// signalGroup sends sig to the server's group (runuser passes it on).
func signalGroup(p *os.Process, sig syscall.Signal) { syscall.Kill(-p.Pid, sig) }
