package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"
)

// newClient makes the API client for DOCKER_HOST and returns it with the
// address to show and a stop func to call after closing it. ssh:// is
// carried by the system's ssh, as the docker CLI does: the user's keys,
// agent, known_hosts and ~/.ssh/config apply (QUARRY_SSH_COMMAND replaces
// "ssh", e.g. "ssh -F ~/.ssh/quarry_config").
// SSHCommandEnv replaces the ssh command (and its options) quarry runs to
// reach an engine at ssh://.
const SSHCommandEnv = "QUARRY_SSH_COMMAND"

func newClient(extra ...client.Opt) (*client.Client, string, func(), error) {
	host := os.Getenv("DOCKER_HOST")
	opts := append([]client.Opt{client.FromEnv}, extra...)
	if strings.HasPrefix(host, "ssh://") {
		dial, stop, err := sshDialer(host)
		if err != nil {
			return nil, host, nil, err
		}
		// The HTTP host is a placeholder: the dialer decides where bytes go.
		opts = append(opts, client.WithHost("tcp://quarry-ssh"), client.WithDialContext(dial))
		cli, err := client.New(opts...)
		if err != nil {
			stop()
			return nil, host, nil, err
		}
		return cli, host, stop, nil
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, host, nil, err
	}
	return cli, cli.DaemonHost(), func() {}, nil
}

type dialFunc func(ctx context.Context, _, _ string) (net.Conn, error)

// sshDialer turns ssh://[user@]host[:port][/path] into a dialer. With a path
// (Podman's form, e.g. /run/user/1000/podman/podman.sock) one ssh forwards a
// private local socket to it for the engine's lifetime; without one, every
// connection is an ssh running `docker system dial-stdio` on the host.
func sshDialer(raw string) (dialFunc, func(), error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || u.RawQuery != "" || u.Fragment != "" || strings.HasPrefix(u.Hostname(), "-") {
		return nil, nil, fmt.Errorf("DOCKER_HOST %q: want ssh://[user@]host[:port][/socket/path]", raw)
	}
	ssh := strings.Fields(os.Getenv(SSHCommandEnv))
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	if _, err := exec.LookPath(ssh[0]); err != nil {
		return nil, nil, fmt.Errorf("DOCKER_HOST is ssh:// but %s is not installed (install openssh-client)", ssh[0])
	}
	args := append([]string{}, ssh[1:]...)
	// BatchMode: a host-key or passphrase prompt would wait on the chat's
	// terminal (or read the connection itself); keys come from ssh-agent.
	args = append(args, "-o", "ConnectTimeout=30", "-o", "BatchMode=yes", "-T")
	if u.User != nil && u.User.Username() != "" {
		args = append(args, "-l", u.User.Username())
	}
	if p := u.Port(); p != "" {
		args = append(args, "-p", p)
	}
	if u.Path == "" || u.Path == "/" {
		args = append(args, "--", u.Hostname(), "docker", "system", "dial-stdio")
		return func(context.Context, string, string) (net.Conn, error) { return dialCommand(ssh[0], args) }, func() {}, nil
	}
	return sshForward(ssh[0], args, u.Hostname(), u.Path)
}

// sshForward starts `ssh -N -L local.sock:remote.sock host` and dials the
// local socket, which lives in a folder only this user can enter.
func sshForward(ssh string, args []string, host, remote string) (dialFunc, func(), error) {
	dir, err := os.MkdirTemp("", "quarry-ssh-")
	if err != nil {
		return nil, nil, fmt.Errorf("ssh: %w", err)
	}
	local := filepath.Join(dir, "engine.sock")
	args = append(args, "-N", "-o", "ExitOnForwardFailure=yes", "-L", local+":"+remote, "--", host)
	cmd := exec.Command(ssh, args...)
	cmd.Env = sshEnv(os.Environ())
	stderr := &LimitedBuffer{Max: 4 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("%s: %w", ssh, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
		os.RemoveAll(dir)
	}
	deadline := time.After(40 * time.Second)
	for {
		if _, err := os.Stat(local); err == nil {
			break
		}
		select {
		case <-exited:
			os.RemoveAll(dir)
			return nil, nil, fmt.Errorf("ssh to %s: %s", host, LastLines(stderr.String()+" (ssh exited)", 3))
		case <-deadline:
			stop()
			return nil, nil, fmt.Errorf("ssh to %s: no forwarded socket after 40s: %s", host, LastLines(stderr.String(), 3))
		case <-time.After(20 * time.Millisecond):
		}
	}
	var d net.Dialer
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		select {
		case <-exited:
			return nil, fmt.Errorf("ssh to %s ended: %s", host, LastLines(stderr.String(), 3))
		default:
		}
		return d.DialContext(ctx, "unix", local)
	}, stop, nil
}

// dialCommand runs a command whose stdin and stdout are the connection.
// The process outlives the dial's context: it is the connection.
func dialCommand(name string, args []string) (net.Conn, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = sshEnv(os.Environ())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &cmdConn{cmd: cmd, w: stdin, r: stdout, stderr: &LimitedBuffer{Max: 4 << 10}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// cmdConn is a net.Conn over a child's pipes. Deadlines are not supported
// (the client cancels through contexts and Close).
type cmdConn struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	r      io.ReadCloser
	stderr *LimitedBuffer
	got    bool // a byte arrived: ssh connected
	once   sync.Once
}

// Read reports ssh's own complaint (host key, authentication, no route)
// when the connection ends before the engine said anything.
func (c *cmdConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.got = c.got || n > 0
	if errors.Is(err, io.EOF) && !c.got {
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			return 0, fmt.Errorf("ssh: %s", LastLines(msg, 3))
		}
	}
	return n, err
}

func (c *cmdConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// CloseWrite ends the request stream, as a TCP half-close would.
func (c *cmdConn) CloseWrite() error { return c.w.Close() }

func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.w.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
	})
	return nil
}

func (c *cmdConn) LocalAddr() net.Addr                { return sshAddr{} }
func (c *cmdConn) RemoteAddr() net.Addr               { return sshAddr{} }
func (c *cmdConn) SetDeadline(t time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(t time.Time) error { return nil }

type sshAddr struct{}

func (sshAddr) Network() string { return "ssh" }
func (sshAddr) String() string  { return "ssh" }

// sshEnv is the environment without variables that look like credentials
// (the model's API key among them): ssh would send any of them that the
// user's ssh config lists in SendEnv, and the engine never needs them.
// ssh's own variables (SSH_AUTH_SOCK, SSH_ASKPASS) stay.
func sshEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		secretLike := false
		for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
			secretLike = secretLike || strings.Contains(upper, w)
		}
		if secretLike && !strings.HasPrefix(upper, "SSH_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
