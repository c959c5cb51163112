package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// What a session says about its limits matches what a cell finds in the
// container, on every engine: a limit is claimed only where it holds, and
// one that does not hold comes with a warning.
func TestLimitsReportedAsTheyHold(t *testing.T) {
	lim := sandbox.Limits{Memory: 512 << 20, PIDs: 96, CPUs: 1}
	s, _ := advSession(t, sandbox.Options{Timeout: 60 * time.Second, Limits: lim})
	var got struct {
		Memory string `json:"memory"`
		Pids   string `json:"pids"`
		Quota  string `json:"quota"`
		Data   []int  `json:"data"`
		NProc  []int  `json:"nproc"`
		UIDMap string `json:"uid_map"`
		NewNS  string `json:"newns"`
		Keyctl string `json:"keyctl"`
	}
	runJSON(t, s, `
import ctypes, errno, os, resource
def read(*paths):
    for p in paths:
        try:
            return open(p).read().strip()
        except OSError:
            pass
    return ''
libc = ctypes.CDLL(None, use_errno=True)
out = {'memory': read('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'),
       'pids': read('/sys/fs/cgroup/pids.max', '/sys/fs/cgroup/pids/pids.max'),
       'quota': read('/sys/fs/cgroup/cpu.max', '/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
       'data': list(resource.getrlimit(resource.RLIMIT_DATA)),
       'nproc': list(resource.getrlimit(resource.RLIMIT_NPROC)),
       'uid_map': read('/proc/self/uid_map')}
pid = os.fork()
if pid == 0:  # single-threaded child: unshare(CLONE_NEWUSER) would work there
    os._exit(0 if libc.unshare(0x10000000) == 0 else ctypes.get_errno())
out['newns'] = errno.errorcode.get(os.waitpid(pid, 0)[1] >> 8, 'succeeded')
r = libc.syscall(250 if os.uname().machine == 'x86_64' else 219, 0, 0, 0, 0, 0)  # keyctl(KEYCTL_GET_KEYRING_ID)
out['keyctl'] = 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), '?')
`+report, &got)
	en, warn := s.Enforcement(), strings.Join(s.Warnings(), "\n")
	t.Logf("held %+v; inside %+v; warnings %q", en, got, warn)

	switch en.Memory {
	case sandbox.LimitCgroup:
		if got.Memory != "536870912" {
			t.Errorf("memory held by the cgroup, but the container's limit is %q", got.Memory)
		}
	case sandbox.LimitPerProcess:
		if got.Data[1] != 512<<20 || !strings.Contains(warn, "memory:") {
			t.Errorf("memory per process: RLIMIT_DATA %v, warnings %q", got.Data, warn)
		}
	default:
		t.Errorf("no memory limit holds")
	}
	switch en.PIDs {
	case sandbox.LimitCgroup:
		if got.Pids != "96" {
			t.Errorf("pids held by the cgroup, but pids.max is %q", got.Pids)
		}
	case sandbox.LimitPerUser:
		if got.NProc[1] != 96 || !strings.Contains(warn, "processes:") {
			t.Errorf("pids per user: RLIMIT_NPROC %v, warnings %q", got.NProc, warn)
		}
	default:
		t.Errorf("no process limit holds")
	}
	if en.CPU == sandbox.LimitCgroup {
		if got.Quota != "100000" && got.Quota != "100000 100000" {
			t.Errorf("CPU held by the cgroup, but the quota is %q", got.Quota)
		}
	} else if !strings.Contains(warn, "CPU:") {
		t.Errorf("CPU limit not held and no warning: %q", warn)
	}
	if (en.Memory == sandbox.LimitCgroup && en.PIDs == sandbox.LimitCgroup && en.CPU == sandbox.LimitCgroup) != (warn == "") {
		t.Errorf("warnings %q for %+v", warn, en)
	}
	if en.UserNS != !strings.HasPrefix(strings.Join(strings.Fields(got.UIDMap), " "), "0 0 4294967295") {
		t.Errorf("user namespace reported %v, uid_map %q", en.UserNS, got.UIDMap)
	}
	// The guard's filter, on every engine: Podman's own profile allows both.
	if !en.Syscalls || got.NewNS != "EPERM" || got.Keyctl != "EPERM" {
		t.Errorf("filter %v: unshare(CLONE_NEWUSER) %s, keyctl %s; want EPERM for both", en.Syscalls, got.NewNS, got.Keyctl)
	}
	if e := sandboxtest.Engine(t); e.Kind() == engine.Docker && !e.Rootless() &&
		(en.Memory != sandbox.LimitCgroup || en.PIDs != sandbox.LimitCgroup) {
		t.Errorf("rootful Docker dropped a cgroup limit: %+v", en)
	}
}
