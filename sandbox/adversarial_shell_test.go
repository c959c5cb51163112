package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// Shell lines run in the sandbox, with its confinement: a shell line is a
// child of the kernel, so it has no network (bash's /dev/tcp to this
// host's own listeners fails, DNS fails), no privileges (no capabilities,
// no new privileges, the seccomp filter, no user namespace), and sees
// nothing of the host (its environment, its files). The network is probed
// only behind the cell's own isolation check (netProbe), and only this
// machine's addresses are tried.
func TestAdversarialShellLines(t *testing.T) {
	const fakeKey = "sk-quarry-shell-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", fakeKey)
	hostDir := t.TempDir()
	marker := filepath.Join(hostDir, "host-only.txt")
	os.WriteFile(marker, []byte("host\n"), 0o644)
	s, outDir := advSession(t, sandbox.Options{Timeout: 90 * time.Second})

	t.Run("NoNetwork", func(t *testing.T) {
		port, accepted := hostListener(t)
		code := netProbe + fmt.Sprintf(`
res = {}
if ISOLATED:
    ifaces = !cat /proc/net/dev
    res['ifaces'] = sorted(l.split(':')[0].strip() for l in ifaces[2:])
    for host in %s:
        got = !timeout 5 bash -c 'echo probe > /dev/tcp/{host}/%d' 2>&1; echo rc=$?
        res['tcp ' + host] = got[-1]
    got = !getent hosts quarry-probe.invalid; echo rc=$?
    res['dns'] = got[-1]
out['results'] = res
`, pyList(hostAddrs(t)), port) + report
		var out struct {
			Isolated bool           `json:"isolated"`
			Results  map[string]any `json:"results"`
		}
		runJSON(t, s, code, &out)
		if !out.Isolated {
			t.Fatal("the container has a network interface or route: no connect was tried")
		}
		if fmt.Sprint(out.Results["ifaces"]) != "[lo]" {
			t.Errorf("a shell line sees interfaces %v, want only lo", out.Results["ifaces"])
		}
		for k, v := range out.Results {
			if strings.HasPrefix(k, "tcp ") && v == "rc=0" {
				t.Errorf("%s from a shell line: connected", k)
			}
		}
		if out.Results["dns"] != "rc=2" {
			t.Errorf("DNS from a shell line: %v, want getent's rc=2", out.Results["dns"])
		}
		if n := accepted.Load(); n != 0 {
			t.Errorf("the host's listener accepted %d connections from a shell line", n)
		}
		t.Logf("from shell lines: %v", out.Results)
	})

	t.Run("NoPrivileges", func(t *testing.T) {
		res := run(t, s, "!grep -E '^(Uid|Gid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\\t ' ' '\n"+
			"!unshare --user --map-root-user id -u >/dev/null 2>&1; echo unshare=$?\n!touch /etc/x /data/x 2>/dev/null; echo touch=$?")
		mustOK(t, res)
		for _, want := range []string{"Uid: 1000 1000 1000 1000", "CapEff: 0000000000000000", "CapPrm: 0000000000000000",
			"CapBnd: 0000000000000000", "NoNewPrivs: 1", "Seccomp: 2", "touch=1"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("a shell line's process: no %q in\n%s", want, res.Stdout)
			}
		}
		if strings.Contains(res.Stdout, "unshare=0") {
			t.Errorf("a shell line made a user namespace:\n%s", res.Stdout)
		}
	})

	t.Run("NothingOfTheHost", func(t *testing.T) {
		res := run(t, s, fmt.Sprintf("!env\n!test -e %s && echo present || echo absent\n!ls -a %s 2>&1 | head -n 3", marker, filepath.Dir(outDir)))
		mustOK(t, res)
		for _, bad := range []string{fakeKey, hostDir, "OPENAI", "present\n"} {
			if strings.Contains(res.Stdout, bad) {
				t.Errorf("a shell line sees %q of the host:\n%s", bad, res.Stdout)
			}
		}
		if !strings.Contains(res.Stdout, "absent\n") {
			t.Errorf("a shell line:\n%s", res.Stdout)
		}
	})
}
