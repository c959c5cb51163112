package sandboxtest

// Python for cells that look at the kernel's checkpoint copies: the
// processes that asked the OOM killer to take them before the kernel (the
// newest at 500, older ones at 1000).

// CopiesPy defines snapshots(adj=None): the copies' pids, oldest first,
// only those at OOM score adj when it is given.
const CopiesPy = `
import os
def snapshots(adj=None):
    found = []
    for p in os.listdir('/proc'):
        try:
            a = int(open('/proc/%s/oom_score_adj' % p).read()) if p.isdigit() else 0
        except OSError:
            continue
        if a >= 500 and adj in (None, a):
            found.append(int(p))
    return sorted(found)
`

// KillCopiesPy ends every copy, as the OOM killer may.
const KillCopiesPy = CopiesPy + `
import signal
for _p in snapshots():
    os.kill(_p, signal.SIGKILL)
`

// CopiesMemoryPy sets copies_mib: what the copies cost, the container's
// anonymous memory beyond what every other process maps (the pages
// copy-on-write kept for the copies alone); and kernel_mib, the kernel's.
// It needs the memory cgroup.
const CopiesMemoryPy = CopiesPy + `
def _kib(path, key):
    for line in open(path):
        k, _, v = line.replace(':', ' ', 1).partition(' ')
        if k == key:
            return int(v.split()[0])
    return 0
if os.path.exists('/sys/fs/cgroup/memory.stat'):
    _anon = _kib('/sys/fs/cgroup/memory.stat', 'anon') // 1024
else:
    _anon = _kib('/sys/fs/cgroup/memory/memory.stat', 'total_rss') // 1024
_mapped = 0
for _p in os.listdir('/proc'):
    if _p.isdigit() and int(_p) not in snapshots():
        try:
            _mapped += _kib('/proc/%s/status' % _p, 'RssAnon')
        except OSError:
            pass
copies_mib = max(0, _anon - _mapped) >> 10
kernel_mib = _kib('/proc/self/status', 'RssAnon') >> 10
`
