package sandbox_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// TestRemoteEngineOverSSH reaches the engine as DOCKER_HOST=ssh://... the
// way a laptop reaches a large server: through an sshd this test starts on
// a loopback port, with keys and host key of its own (Debian's
// openssh-server; scripts/ensure-sshd.sh installs it without a service).
func TestRemoteEngineOverSSH(t *testing.T) {
	sandboxtest.Engine(t) // skip/fail rules and the image check
	sock := sandboxtest.EngineSocket(t)
	d := startSSHD(t)
	t.Setenv("QUARRY_SSH_COMMAND", "ssh -F "+d.config)

	t.Run("SocketPath", func(t *testing.T) {
		// Podman's form: the socket on the far side is named in the URL.
		t.Setenv("DOCKER_HOST", fmt.Sprintf("ssh://root@127.0.0.1:%d%s", d.port, sock))
		e := connect(t)
		if !strings.HasPrefix(e.Host(), "ssh://") {
			t.Fatalf("host %q", e.Host())
		}
		remoteRoundTrip(t, e)
	})
	t.Run("DialStdio", func(t *testing.T) {
		// Docker's form: the far side runs `docker system dial-stdio`.
		if sock != "/var/run/docker.sock" {
			t.Skip("the far side's docker CLI reaches /var/run/docker.sock, not the engine under test")
		}
		if _, err := exec.LookPath("docker"); err != nil {
			t.Skip("no docker CLI on the far side")
		}
		t.Setenv("DOCKER_HOST", fmt.Sprintf("ssh://root@127.0.0.1:%d", d.port))
		remoteRoundTrip(t, connect(t))
	})
	t.Run("UnknownHostKeyRefused", func(t *testing.T) {
		// ssh's own checks apply: a host key it does not know ends the
		// connection, and the message says what ssh said.
		os.WriteFile(d.knownHosts, nil, 0o600)
		t.Setenv("DOCKER_HOST", fmt.Sprintf("ssh://root@127.0.0.1:%d%s", d.port, sock))
		_, err := engine.Connect(testCtx(t))
		if err == nil || !strings.Contains(err.Error(), "Host key verification failed") {
			t.Fatalf("connect with an unknown host key: %v", err)
		}
	})
}

func connect(t *testing.T) *engine.Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := engine.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

type sshd struct {
	port       int
	config     string // the client's ssh_config
	knownHosts string
}

// startSSHD runs an sshd on 127.0.0.1 that takes root with a key made here.
func startSSHD(t *testing.T) sshd {
	t.Helper()
	if os.Geteuid() != 0 {
		why := "needs root, to start an sshd that takes root"
		if os.Getenv("CI") == "true" {
			t.Fatalf("ssh test cannot run in CI: %s", why)
		}
		t.Skip(why)
	}
	sshdBin := hosttest.Tool(t, "sshd")
	sshKeygen := hosttest.Tool(t, "ssh-keygen")
	dir := t.TempDir()
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command(sshKeygen, "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub := func(k string) string {
		b, err := os.ReadFile(filepath.Join(dir, k+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	d := sshd{port: port, config: filepath.Join(dir, "ssh_config"), knownHosts: filepath.Join(dir, "known_hosts")}
	files := map[string]string{
		"authorized_keys": pub("client_key") + "\n",
		"known_hosts":     fmt.Sprintf("[127.0.0.1]:%d %s\n", port, pub("host_key")),
		"sshd_config": fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %[2]s/host_key
PidFile %[2]s/sshd.pid
AuthorizedKeysFile %[2]s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowStreamLocalForwarding yes
AllowTcpForwarding local
X11Forwarding no
PermitTTY no
`, port, dir),
		"ssh_config": fmt.Sprintf(`Host *
  IdentityFile %[1]s/client_key
  IdentitiesOnly yes
  UserKnownHostsFile %[1]s/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
`, dir),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll("/run/sshd", 0o755) // privilege separation folder; the package makes it at boot
	cmd := exec.Command(sshdBin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan struct{})
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Server listening") {
				close(listening)
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatalf("sshd did not start:\n%s", log.String())
	}
	return d
}
