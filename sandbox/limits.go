package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/quarry-cli/quarry/kernel"
)

// What holds in a session is measured, not assumed: engines differ (rootless
// Podman on cgroup v1 accepts memory, CPU and pids limits and drops them
// without a word; its Docker API drops ulimits too), so before the kernel
// starts, a guard in the container lowers the process's hard rlimits (user
// code, without CAP_SYS_RESOURCE, cannot raise them again), reads the cgroup
// limits and file-system caps it actually got, and reports them in one
// "limits" frame. Where the cgroup limit is missing, an rlimit takes over
// where it protects: RLIMIT_NPROC for processes, RLIMIT_DATA per process for
// memory (which bounds one runaway allocation, not the sum of several).

// LimitState says how one limit is held in a session.
type LimitState string

const (
	LimitCgroup     LimitState = "cgroup"      // the engine's cgroup limit, seen from inside
	LimitPerProcess LimitState = "per-process" // an rlimit per process only
	LimitPerUser    LimitState = "per-user"    // RLIMIT_NPROC: all sandboxes of the container user together
	LimitNone       LimitState = "none"        // not enforced at all
)

// Enforcement is what one session's container measured at start.
type Enforcement struct {
	Memory      LimitState
	PIDs        LimitState
	CPU         LimitState
	OutputBytes int64 // effective size of /output
	TmpBytes    int64 // effective size of /tmp
	PageSize    int64 // the engine host's memory page size
	UserNS      bool  // container root is an ordinary user on the host
	Syscalls    bool  // the guard's seccomp filter (no user namespaces, no keyring) is in place
	Measured    bool  // the guard reported (false for a kernel that never started)
}

// limitsReport is the guard's frame.
type limitsReport struct {
	Cgroup struct {
		Memory *int64   `json:"memory"`
		PIDs   *int64   `json:"pids"`
		CPUs   *float64 `json:"cpus"`
	} `json:"cgroup"`
	Rlimits map[string]int64 `json:"rlimits"`
	Output  fsReport         `json:"output"`
	Tmp     fsReport         `json:"tmp"`
	Page    int64            `json:"page"`
	UserNS  bool             `json:"userns"`
	Seccomp bool             `json:"seccomp"`
}

type fsReport struct {
	Bytes  int64 `json:"bytes"`
	Inodes int64 `json:"inodes"`
	Block  int64 `json:"block"`
}

// guardSource is prepended to the kernel. It must only lower limits, and it
// runs before any user code: its report describes the container, not a cell.
const guardSource = `def _quarry_guard(want, fd):
    import os, resource, json, struct
    def first(paths):
        for p in paths:
            try:
                with open(p) as f:
                    return f.read().strip()
            except OSError:
                pass
        return None
    def num(s):
        try:
            return int(s.split()[0])
        except (AttributeError, ValueError, IndexError):
            return None
    mem = num(first(('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes')))
    pids = num(first(('/sys/fs/cgroup/pids.max', '/sys/fs/cgroup/pids/pids.max')))
    cpu = first(('/sys/fs/cgroup/cpu.max',))
    if cpu is not None:
        q, p = (cpu.split() + ['', ''])[:2]
        q, p = num(q), num(p)
    else:
        q = num(first(('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us')))
        p = num(first(('/sys/fs/cgroup/cpu/cpu.cfs_period_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us')))
    cpus = q / p if q and p and q > 0 else None
    rep = {'cgroup': {'memory': mem, 'pids': pids, 'cpus': cpus}, 'rlimits': {}}
    lim = {'RLIMIT_NOFILE': want['nofile'], 'RLIMIT_CORE': 0, 'RLIMIT_FSIZE': want['fsize']}
    if not (mem and mem <= want['memory']):
        lim['RLIMIT_DATA'] = want['memory']
    if pids != want['pids']:
        lim['RLIMIT_NPROC'] = want['pids']
    for name, v in lim.items():
        which = getattr(resource, name)
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY and hard < v:
            v = hard
        try:
            resource.setrlimit(which, (v, v))
        except (OSError, ValueError):
            pass
        rep['rlimits'][name] = resource.getrlimit(which)[1]
    for name in ('output', 'tmp'):
        st = os.statvfs('/' + name)
        rep[name] = {'bytes': st.f_frsize * st.f_blocks, 'inodes': st.f_files, 'block': st.f_frsize}
    rep['page'] = os.sysconf('SC_PAGE_SIZE')
    try:
        with open('/proc/self/uid_map') as f:
            rep['userns'] = f.read().split()[:3] != ['0', '0', '4294967295']
    except OSError:
        rep['userns'] = False
    rep['seccomp'] = _quarry_seccomp()
    data = json.dumps({'t': 'limits', 'limits': rep}).encode()
    os.write(fd, struct.pack('>I', len(data)) + data)
def _quarry_seccomp():
    # A filter on top of the engine's profile, which Podman's leaves open:
    # no new user namespace (clone/unshare with CLONE_NEWUSER; clone3, whose
    # flags a filter cannot read, says ENOSYS so libc falls back to clone),
    # no kernel keyring, no foreign syscall ABI. Inherited by every child,
    # and never removable.
    import ctypes, os, struct
    nrs = {'x86_64': (0xc000003e, 272, 56, 435, (250, 248, 249)),
           'aarch64': (0xc00000b7, 97, 220, 435, (219, 217, 218))}.get(os.uname().machine)
    if nrs is None:
        return False
    arch, unshare, clone, clone3, keys = nrs
    ALLOW, EPERM, ENOSYS = 0x7fff0000, 0x00050001, 0x00050026
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    P, N = 15, 16  # the EPERM and ENOSYS returns below
    prog = [(LD, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, EPERM), (LD, 0, 0, 0),
            (JGE, P - 5, 0, 0x40000000),
            (JEQ, 12 - 6, 0, unshare), (JEQ, 12 - 7, 0, clone), (JEQ, N - 8, 0, clone3),
            (JEQ, P - 9, 0, keys[0]), (JEQ, P - 10, 0, keys[1]), (JEQ, P - 11, 0, keys[2]),
            (RET, 0, 0, ALLOW),
            (LD, 0, 0, 16), (JSET, P - 14, 0, 0x10000000), (RET, 0, 0, ALLOW),
            (RET, 0, 0, EPERM), (RET, 0, 0, ENOSYS)]
    buf = ctypes.create_string_buffer(b''.join(struct.pack('HBBI', *i) for i in prog))
    class FProg(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
    fp = FProg(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(38, 1, None, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    return libc.prctl(22, 2, ctypes.byref(fp), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
`

// guardCall is the line that runs the guard with this session's limits.
func guardCall(lim Limits) string {
	want, _ := json.Marshal(map[string]int64{
		"nofile": 1024, "fsize": fsizeLimit(lim), "memory": lim.Memory, "pids": lim.PIDs,
	})
	return guardSource + "_quarry_guard(" + string(want) + ", QOUT)\ndel _quarry_guard, _quarry_seccomp\n"
}

// fsizeLimit is the largest file a sandbox process may write.
func fsizeLimit(lim Limits) int64 { return max(lim.OutputSize, 1<<30) }

// enforcement turns the guard's report into what holds for lim.
func (r *limitsReport) enforcement(lim Limits) Enforcement {
	en := Enforcement{Memory: LimitNone, PIDs: LimitNone, CPU: LimitNone, Measured: true,
		OutputBytes: r.Output.Bytes, TmpBytes: r.Tmp.Bytes, PageSize: r.Page, UserNS: r.UserNS, Syscalls: r.Seccomp}
	switch m := r.Cgroup.Memory; {
	case m != nil && *m > 0 && *m <= lim.Memory:
		en.Memory = LimitCgroup
	case r.Rlimits["RLIMIT_DATA"] > 0 && r.Rlimits["RLIMIT_DATA"] <= lim.Memory:
		en.Memory = LimitPerProcess
	}
	switch p := r.Cgroup.PIDs; {
	case p != nil && *p == lim.PIDs:
		en.PIDs = LimitCgroup
	case r.Rlimits["RLIMIT_NPROC"] > 0 && r.Rlimits["RLIMIT_NPROC"] <= lim.PIDs:
		en.PIDs = LimitPerUser
	}
	if c := r.Cgroup.CPUs; c != nil && *c > 0 && *c <= lim.CPUs+0.01 {
		en.CPU = LimitCgroup
	}
	return en
}

// Warnings say, in words for the user, which limits do not hold as
// configured; nil when everything does.
func (en Enforcement) Warnings(lim Limits) []string {
	if !en.Measured {
		return nil
	}
	var w []string
	mem := kernel.FormatSize(lim.Memory)
	switch en.Memory {
	case LimitPerProcess:
		w = append(w, fmt.Sprintf("memory: no %s limit for the sandbox as a whole; each of its processes is capped at %s (RLIMIT_DATA), several together are not", mem, mem))
	case LimitNone:
		w = append(w, fmt.Sprintf("memory: the %s limit is not enforced", mem))
	}
	switch en.PIDs {
	case LimitPerUser:
		w = append(w, fmt.Sprintf("processes: no limit of %d for the sandbox alone; RLIMIT_NPROC caps all sandboxes of this user together at %d processes and threads", lim.PIDs, lim.PIDs))
	case LimitNone:
		w = append(w, fmt.Sprintf("processes: the limit of %d is not enforced", lim.PIDs))
	}
	if en.CPU == LimitNone {
		w = append(w, fmt.Sprintf("CPU: the %g-core limit is not enforced; a cell may use every core until its time limit", lim.CPUs))
	}
	return w
}

// Summary says in a line what holds when nothing needs a warning.
func (en Enforcement) Summary(lim Limits) string {
	return fmt.Sprintf("memory %s, %d processes, %g CPUs, enforced by the engine's cgroups; /output %s, /tmp %s",
		kernel.FormatSize(lim.Memory), lim.PIDs, lim.CPUs, kernel.FormatSize(en.OutputBytes), kernel.FormatSize(en.TmpBytes))
}

// Limits are the session's limits, the defaults filled in.
func (s *Session) Limits() Limits { return s.lim }

// Enforcement reports what the session's container measured at its last
// kernel start.
func (s *Session) Enforcement() Enforcement { return s.enforced }

// Warnings name the configured limits that do not hold in this session,
// and why when the engine is known to drop them, for front ends to show
// once at start.
func (s *Session) Warnings() []string {
	w := s.enforced.Warnings(s.lim)
	if len(w) > 0 && s.e.Rootless() && s.e.CgroupVersion() == "1" {
		w = append(w, "rootless "+string(s.e.Kind())+" on cgroup v1 cannot set cgroup limits: cgroup v2, or a rootful engine, enforces them")
	}
	return w
}

// RuntimeNote says why the sandbox runs under another runtime than the
// engine's default, when this session chose it; empty otherwise.
func (s *Session) RuntimeNote() string { return s.runtimeNote }
