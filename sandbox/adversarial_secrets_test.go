package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// Nothing of the host may be visible inside: no keys, no host paths, no user
// names, no engine socket. The test plants recognisable values in its own
// environment before the session starts, then has the cell dump every place
// they could leak to into /output; the host reads the harvested dump.
func TestAdversarialHostSecrets(t *testing.T) {
	const (
		fakeKey  = "sk-quarry-adversarial-0123456789abcdef"
		fakeUser = "quarry-host-user-7f3a"
	)
	hostHome := t.TempDir()
	t.Setenv("OPENAI_API_KEY", fakeKey)
	t.Setenv("QUARRY_API_KEY", fakeKey)
	t.Setenv("USER", fakeUser)
	t.Setenv("LOGNAME", fakeUser)
	t.Setenv("HOME", hostHome)

	inputDir := t.TempDir()
	input := filepath.Join(inputDir, "sales.csv")
	if err := os.WriteFile(input, []byte("region,amount\nnorth,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, outDir := advSession(t, sandbox.Options{Timeout: 90 * time.Second})
	ctx := testCtx(t)
	if _, err := s.AddFile(ctx, input); err != nil {
		t.Fatalf("AddFile: %v", err)
	}

	t.Run("EnvironmentCarriesNothingFromHost", func(t *testing.T) {
		var env map[string]string
		runJSON(t, s, "import os\nout = dict(os.environ)"+report, &env)
		for k, v := range env {
			up := strings.ToUpper(k)
			for _, bad := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "DOCKER", "OPENAI", "QUARRY_API"} {
				if strings.Contains(up, bad) {
					t.Errorf("environment variable %s reached the sandbox", k)
				}
			}
			for _, secret := range []string{fakeKey, fakeUser, hostHome, inputDir, outDir} {
				if strings.Contains(v, secret) {
					t.Errorf("environment %s=%q carries a host value", k, v)
				}
			}
		}
		t.Logf("sandbox environment keys: %v", keys(env))
	})

	t.Run("FileSystemCarriesNothingFromHost", func(t *testing.T) {
		res := run(t, s, `
import os
parts = []
def add(p, limit=1 << 20):
    try:
        with open(p, 'rb') as f:
            parts.append(b'== ' + p.encode() + b'\n' + f.read(limit))
    except OSError as e:
        parts.append(('== %s: %s\n' % (p, type(e).__name__)).encode())
for p in ('/proc/self/environ', '/proc/1/environ', '/proc/self/mountinfo', '/proc/self/cmdline',
          '/proc/1/cmdline', '/proc/self/cgroup', '/etc/passwd', '/etc/group', '/etc/hostname', '/etc/hosts',
          '/etc/resolv.conf'):
    add(p)
for pid in os.listdir('/proc'):
    if pid.isdigit():
        add('/proc/%s/environ' % pid)
        add('/proc/%s/cmdline' % pid)
for top in ('/tmp', '/home', '/data', '/run', '/var/tmp', '/etc', '/root', '/output'):
    for root, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            if not p.startswith('/output/hostdump') and os.path.isfile(p) and not os.path.islink(p):
                add(p, 256 << 10)
with open('/output/hostdump.bin', 'wb') as f:
    f.write(b'\n'.join(parts))
print('dumped', sum(map(len, parts)))
`)
		mustOK(t, res)
		f, ok := hasFile(res.Files, "hostdump.bin")
		if !ok {
			t.Fatalf("dump not harvested: files %v notes %v", fileNames(res.Files), res.Notes)
		}
		dump, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(dump) < 1000 || !strings.Contains(string(dump), "== /proc/self/mountinfo") {
			t.Fatalf("dump too small (%d bytes): the cell did not read the files", len(dump))
		}
		for name, secret := range map[string]string{
			"API key": fakeKey, "host user name": fakeUser, "host HOME": hostHome,
			"input folder": inputDir, "output folder": outDir,
		} {
			if i := strings.Index(string(dump), secret); i >= 0 {
				t.Errorf("%s %q is visible inside the sandbox: …%s…", name, secret, around(string(dump), i))
			}
		}
		if !strings.Contains(string(dump), "== /data/sales.csv") {
			t.Errorf("the input is not visible as /data/sales.csv (base name only)")
		}
	})

	t.Run("NoDockerSocket", func(t *testing.T) {
		var out struct {
			Sockets []string `json:"sockets"`
			Named   []string `json:"named"`
		}
		runJSON(t, s, `
import os, stat
out = {'sockets': [], 'named': []}
for root, dirs, files in os.walk('/'):
    if root in ('/proc', '/sys'):
        dirs[:] = []
        continue
    for f in files + dirs:
        p = os.path.join(root, f)
        if 'docker' in f or 'containerd' in f or f.endswith('.sock'):
            out['named'].append(p)
        try:
            if stat.S_ISSOCK(os.lstat(p).st_mode):
                out['sockets'].append(p)
        except OSError:
            pass
`+report, &out)
		if len(out.Sockets) > 0 {
			t.Errorf("Unix sockets in the sandbox file system: %q", out.Sockets)
		}
		for _, p := range out.Named {
			if strings.HasSuffix(p, ".sock") || strings.Contains(p, "docker.sock") || strings.Contains(p, "containerd") {
				t.Errorf("engine socket-like path in the sandbox: %s", p)
			}
		}
	})
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// around shows a little of the dump around a leak, for the failure message.
func around(s string, i int) string {
	lo, hi := max(0, i-80), min(len(s), i+80)
	return strings.ToValidUTF8(s[lo:hi], "?")
}
