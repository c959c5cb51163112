package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// What hostile code can do to the kernel it shares: capabilities, seccomp,
// setuid, mount, namespaces, masked /proc, writable and executable places.
func TestAdversarialPrivileges(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 90 * time.Second})

	t.Run("ProcStatusCapsNoNewPrivsSeccomp", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
out = {}
for line in open('/proc/self/status'):
    k, _, v = line.partition(':')
    out[k] = v.strip()
`+report, &out)
		want := map[string]string{
			"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
			"CapBnd": "0000000000000000", "CapAmb": "0000000000000000",
			"NoNewPrivs": "1", "Seccomp": "2",
		}
		for k, v := range want {
			if out[k] != v {
				t.Errorf("/proc/self/status %s = %q, want %q", k, out[k], v)
			}
		}
	})

	t.Run("NonRootUser", func(t *testing.T) {
		var out map[string]int
		runJSON(t, s, `
import os
out = {'uid': os.getuid(), 'euid': os.geteuid(), 'gid': os.getgid(), 'egid': os.getegid(), 'groups0': int(0 in os.getgroups())}
`+report, &out)
		if out["uid"] == 0 || out["euid"] == 0 || out["gid"] == 0 || out["egid"] == 0 || out["groups0"] != 0 {
			t.Errorf("ids %v: the kernel must not run as root or in group 0", out)
		}
	})

	t.Run("SetuidZeroFails", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import os
out = {}
for name, fn in (('setuid', lambda: os.setuid(0)), ('seteuid', lambda: os.seteuid(0)),
                 ('setreuid', lambda: os.setreuid(0, 0)), ('setgid', lambda: os.setgid(0)),
                 ('setgroups', lambda: os.setgroups([0]))):
    try:
        fn()
        out[name] = 'succeeded'
    except OSError as e:
        out[name] = type(e).__name__
`+report, &out)
		for k, v := range out {
			if v != "PermissionError" {
				t.Errorf("%s(0): %s, want PermissionError", k, v)
			}
		}
	})

	t.Run("NoSetuidBinaries", func(t *testing.T) {
		var out struct {
			Setuid  []string `json:"setuid"`
			FileCap []string `json:"filecap"`
			Scanned int      `json:"scanned"`
		}
		runJSON(t, s, `
import os, stat
out = {'setuid': [], 'filecap': [], 'scanned': 0}
for root, dirs, files in os.walk('/'):
    if root in ('/proc', '/sys', '/dev'):
        dirs[:] = []
        continue
    for f in files:
        p = os.path.join(root, f)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        out['scanned'] += 1
        if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            out['setuid'].append(p)
        try:
            os.getxattr(p, 'security.capability', follow_symlinks=False)
            out['filecap'].append(p)
        except OSError:
            pass
`+report, &out)
		if out.Scanned < 1000 {
			t.Errorf("scanned only %d files: the walk did not cover the image", out.Scanned)
		}
		if len(out.Setuid) > 0 {
			t.Errorf("setuid/setgid files in the image: %q", out.Setuid)
		}
		if len(out.FileCap) > 0 {
			t.Errorf("files with capabilities in the image: %q", out.FileCap)
		}
	})

	t.Run("MountAndUnshareFail", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import ctypes, os, errno, subprocess
libc = ctypes.CDLL(None, use_errno=True)
out = {}
os.makedirs('/tmp/mnt', exist_ok=True)
r = libc.mount(b'none', b'/tmp/mnt', b'tmpfs', 0, None)
out['mount'] = 'ok' if r == 0 else errno.errorcode.get(ctypes.get_errno(), '?')
r = libc.mount(b'/proc', b'/tmp/mnt', None, 4096, None)  # MS_BIND
out['bind'] = 'ok' if r == 0 else errno.errorcode.get(ctypes.get_errno(), '?')
for name, flag in (('user', 0x10000000), ('mnt', 0x00020000), ('net', 0x40000000), ('pid', 0x20000000)):
    r = libc.unshare(flag)
    out['unshare_' + name] = 'ok' if r == 0 else errno.errorcode.get(ctypes.get_errno(), '?')
try:
    p = subprocess.run(['unshare', '--user', '--map-root-user', 'id', '-u'], capture_output=True, timeout=20)
    out['unshare_cmd'] = 'exit %d %s' % (p.returncode, p.stdout.decode().strip())
except FileNotFoundError:
    out['unshare_cmd'] = 'absent'
`+report, &out)
		for k, v := range out {
			if k == "unshare_cmd" {
				if strings.HasPrefix(v, "exit 0") {
					t.Errorf("unshare command: %s, want failure", v)
				}
				continue
			}
			if v == "ok" {
				t.Errorf("%s succeeded inside the sandbox", k)
			}
		}
		t.Logf("%v", out)
	})

	t.Run("ProcAndSysMasked", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import os
out = {}
for p in ('/proc/kcore', '/proc/keys', '/proc/timer_list', '/proc/sched_debug', '/proc/latency_stats', '/proc/kallsyms'):
    try:
        with open(p, 'rb') as f:
            data = f.read(4096)
        out[p] = 'read %d' % len(data)
        if p == '/proc/kallsyms':  # readable, but the addresses must be hidden
            out[p] = 'zeroed' if data and all(l.split()[0].strip(b'0') == b'' for l in data.splitlines()[:-1] if l) else 'addresses'
    except FileNotFoundError:
        out[p] = 'absent'
    except OSError as e:
        out[p] = type(e).__name__
for p in ('/sys/firmware', '/proc/acpi', '/proc/scsi'):
    try:
        out[p] = 'entries %d' % len(os.listdir(p))
    except OSError as e:
        out[p] = type(e).__name__
for p, data in (('/proc/sysrq-trigger', 'h'), ('/proc/sys/kernel/hostname', 'x'), ('/proc/sys/vm/drop_caches', '1')):
    try:
        with open(p, 'w') as f:
            f.write(data)
        out['write ' + p] = 'written'
    except OSError as e:
        out['write ' + p] = type(e).__name__
`+report, &out)
		for k, v := range out {
			switch {
			case strings.HasPrefix(k, "write "):
				if v == "written" {
					t.Errorf("%s succeeded", k)
				}
			case k == "/proc/kallsyms":
				if v == "addresses" {
					t.Errorf("/proc/kallsyms shows kernel addresses")
				}
			case strings.HasPrefix(v, "read ") && v != "read 0", strings.HasPrefix(v, "entries ") && v != "entries 0":
				t.Errorf("%s: %s, want masked (empty or refused)", k, v)
			}
		}
		t.Logf("%v", out)
	})

	t.Run("WritesOutsideAllowedFoldersFail", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import os
out = {}
for d in ('/', '/etc', '/usr', '/usr/local/bin', '/bin', '/data', '/home', '/home/sandbox', '/root',
          '/var', '/var/tmp', '/opt', '/run', '/etc/quarry', '/tmp', '/output'):
    p = os.path.join(d, 'quarry-probe-write')
    try:
        with open(p, 'x') as f:
            f.write('x')
        os.remove(p)
        out[d] = 'written'
    except OSError as e:
        out[d] = type(e).__name__ + ' ' + str(e.errno)
`+report, &out)
		for d, v := range out {
			allowed := d == "/tmp" || d == "/output"
			if allowed != (v == "written") {
				t.Errorf("write in %s: %s (allowed=%v)", d, v, allowed)
			}
		}
	})

	t.Run("NoExecInTmp", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import os, shutil, subprocess, glob
out = {}
for d in ('/tmp', '/dev/shm', '/output'):
    if not os.path.isdir(d):
        continue
    p = os.path.join(d, 'quarry-true')
    try:
        shutil.copy('/usr/bin/true', p)
        os.chmod(p, 0o755)
    except OSError as e:
        out[d] = 'copy ' + type(e).__name__
        continue
    try:
        out[d] = 'exit %d' % subprocess.run([p], timeout=20).returncode
    except OSError as e:
        out[d] = type(e).__name__
    ld = (glob.glob('/lib64/ld-linux*.so*') + glob.glob('/lib/*/ld-linux*.so*'))[:1]
    if ld:
        r = subprocess.run([ld[0], p], capture_output=True, timeout=20)
        out[d + ' via ld.so'] = 'exit %d' % r.returncode
    os.remove(p)
`+report, &out)
		for _, k := range []string{"/tmp", "/tmp via ld.so"} {
			if v, ok := out[k]; !ok || v == "exit 0" {
				t.Errorf("running a copied binary from %s: %q, want refused", k, v)
			}
		}
		t.Logf("%v", out) // /dev/shm and /output are logged, not asserted
	})

	t.Run("InitProcessAndRlimits", func(t *testing.T) {
		var out struct {
			Init   string           `json:"init"`
			Limits map[string][]int `json:"limits"`
		}
		runJSON(t, s, `
import resource
out = {'init': open('/proc/1/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace'), 'limits': {}}
for name in ('RLIMIT_CORE', 'RLIMIT_NOFILE', 'RLIMIT_FSIZE', 'RLIMIT_NPROC'):
    out['limits'][name] = list(resource.getrlimit(getattr(resource, name)))
`+report, &out)
		if !strings.Contains(out.Init, "init") && !strings.Contains(out.Init, "tini") {
			t.Errorf("pid 1 is %q, want an init process (docker-init/tini) that reaps zombies", out.Init)
		}
		if c := out.Limits["RLIMIT_CORE"]; len(c) != 2 || c[0] != 0 || c[1] != 0 {
			t.Errorf("RLIMIT_CORE = %v, want 0 0 (no core dumps)", c)
		}
		if n := out.Limits["RLIMIT_NOFILE"]; len(n) != 2 || n[1] < 0 || n[1] > 65536 {
			t.Errorf("RLIMIT_NOFILE = %v, want a hard limit of at most 65536", n)
		}
		if f := out.Limits["RLIMIT_FSIZE"]; len(f) != 2 || f[1] < 0 {
			t.Errorf("RLIMIT_FSIZE = %v, want a finite file-size limit", f)
		}
		t.Logf("%+v", out)
	})
}
