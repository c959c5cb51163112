package sandboxtest

import (
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
)

// EngineProxy forwards a loopback TCP port to the real engine's Unix
// socket. Cut drops every connection (the kernels' attach streams with
// them) and stops listening, as an engine that stops or restarts does;
// Restore listens on the same port again, as the engine back up. Tests of
// "the engine went away" use it instead of stopping the shared engine,
// which other tests on the machine are using.
type EngineProxy struct {
	t    testing.TB
	sock string
	addr string
	mu   sync.Mutex
	ln   net.Listener
	cons []net.Conn
}

// NewEngineProxy starts the proxy; Host is the DOCKER_HOST that reaches
// the engine through it. It is cut when the test ends, after the cleanups
// registered later (which may still need the engine).
func NewEngineProxy(t testing.TB) *EngineProxy {
	t.Helper()
	p := &EngineProxy{t: t, sock: EngineSocket(t), addr: "127.0.0.1:0"}
	p.listen()
	t.Cleanup(p.Cut)
	return p
}

// EngineSocket is the real engine's Unix socket: DOCKER_HOST's, or
// Docker's default; a DOCKER_HOST that is no socket skips the test.
func EngineSocket(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		p, ok := strings.CutPrefix(h, "unix://")
		if !ok {
			t.Skip("DOCKER_HOST is not a Unix socket")
		}
		return p
	}
	return "/var/run/docker.sock"
}

// Host is tcp://127.0.0.1:PORT.
func (p *EngineProxy) Host() string { return "tcp://" + p.addr }

func (p *EngineProxy) listen() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("engine proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("unix", p.sock)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.cons = append(p.cons, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.(*net.UnixConn).CloseWrite() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
}

// Cut drops every connection and refuses new ones.
func (p *EngineProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.cons {
		c.Close()
	}
	p.cons = nil
}

// Restore listens again on the same port.
func (p *EngineProxy) Restore() {
	p.mu.Lock()
	up := p.ln != nil
	p.mu.Unlock()
	if !up {
		p.listen()
	}
}
