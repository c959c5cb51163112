package sandbox_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// Resource exhaustion: each case runs under small limits so it stays cheap,
// and asserts both that the limit held and that the session is usable after.

// psMarked lists processes whose command line contains marker (the cell that
// asks is excluded because the marker is split in its source).
const psMarked = `
import os
def marked(m):
    found = []
    for pid in os.listdir('/proc'):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                cmd = open('/proc/%s/cmdline' % pid, 'rb').read().replace(b'\0', b' ').decode(errors='replace')
            except OSError:
                continue
            if m in cmd:
                found.append(pid + ' ' + cmd)
    return found
`

func TestAdversarialForkBomb(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 8 * time.Second, Limits: sandbox.Limits{PIDs: 64, Memory: 512 << 20}})
	var cg struct {
		PidsMax string `json:"pids_max"`
		NProc   []int  `json:"nproc"`
	}
	runJSON(t, s, `
import resource
out = {'nproc': list(resource.getrlimit(resource.RLIMIT_NPROC))}
for p in ('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max'):
    try:
        out['pids_max'] = open(p).read().strip()
        break
    except OSError:
        pass
`+report, &cg)
	switch en := s.Enforcement(); en.PIDs {
	case sandbox.LimitCgroup:
		if cg.PidsMax != "64" {
			t.Errorf("pids.max = %q, want 64 from Limits.PIDs", cg.PidsMax)
		}
	case sandbox.LimitPerUser: // the engine dropped the pids cgroup (rootless Podman, cgroup v1)
		if cg.PidsMax == "64" || len(cg.NProc) != 2 || cg.NProc[1] != 64 {
			t.Errorf("pids.max %q, RLIMIT_NPROC %v: want no cgroup limit and a hard RLIMIT_NPROC of 64", cg.PidsMax, cg.NProc)
		}
	default:
		t.Fatalf("no process limit holds: %+v", en)
	}
	res := run(t, s, `
import subprocess, time
subprocess.Popen(['sh', '-c', 'bomb() { bomb | bomb & }; bomb'])
time.sleep(60)
`)
	if res.Error == nil || (res.Error.Kind != kernel.ErrTimeout && res.Error.Kind != kernel.ErrCrashed) {
		t.Errorf("fork bomb cell: error %+v, want a timeout (or a crash)", res.Error)
	}
	// The session recovers: a plain cell runs, possibly on a fresh kernel.
	var after map[string]any
	res = runJSON(t, s, psMarked+"out = {'alive': 1 + 1, 'bombs': len(marked('bomb' + '()'))}"+report, &after)
	if after["alive"] != float64(2) {
		t.Fatalf("after the fork bomb: %+v (error %+v)", after, res.Error)
	}
	if after["bombs"] != float64(0) {
		t.Errorf("%v fork-bomb processes outlived the timed-out cell", after["bombs"])
	}
	t.Logf("after the bomb: %v, state lost: %v", after, res.StateLost)
}

func TestAdversarialMemoryBomb(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 60 * time.Second, Limits: sandbox.Limits{Memory: 384 << 20}})
	res := run(t, s, "x = 41\nb = bytearray(b'\\x01') * (2 << 30)\nprint(len(b))")
	if res.Error == nil {
		t.Fatalf("a 2 GiB allocation under a 384 MiB limit succeeded: %q", res.Stdout)
	}
	oom := res.Error.Kind == kernel.ErrOutOfMemory ||
		(res.Error.Kind == kernel.ErrException && res.Error.Type == "MemoryError")
	if !oom {
		t.Errorf("memory bomb reported as %+v, want out-of-memory", *res.Error)
	}
	t.Logf("memory bomb: %+v", *res.Error)
	res = run(t, s, "print('alive', 1 + 1)")
	mustOK(t, res)
	if !strings.Contains(res.Stdout, "alive 2") {
		t.Errorf("after the memory bomb: stdout %q", res.Stdout)
	}
	// A figure bomb: 60000×60000 pixels would need 14 GB to render.
	res = run(t, s, "import matplotlib.pyplot as plt\nfig = plt.figure(figsize=(600, 600), dpi=100)\nplt.plot([1, 2])")
	for _, f := range res.Figures {
		if f.Width > 10000 || f.Height > 10000 {
			t.Errorf("figure %s of %d×%d reached the host", f.Name, f.Width, f.Height)
		}
	}
	t.Logf("figure bomb: error %+v, figures %d, notes %q", res.Error, len(res.Figures), res.Notes)
	res = run(t, s, "print('alive', 2 + 2)")
	if !strings.Contains(res.Stdout, "alive 4") {
		t.Errorf("after the figure bomb: stdout %q error %+v", res.Stdout, res.Error)
	}
}

func TestAdversarialDiskCaps(t *testing.T) {
	const tmpSize, outSize, outFiles = 16 << 20, 16 << 20, 200
	s, outDir := advSession(t, sandbox.Options{Timeout: 90 * time.Second,
		Limits: sandbox.Limits{TmpSize: tmpSize, OutputSize: outSize, OutputFiles: outFiles}})

	fill := `
import errno
out = {'written': 0, 'errno': None}
chunk = b'\0' * (1 << 20)
try:
    with open(%s, 'wb') as f:
        for _ in range(256):
            f.write(chunk)
            f.flush()
            out['written'] += len(chunk)
except OSError as e:
    out['errno'] = errno.errorcode.get(e.errno, str(e.errno))
`
	t.Run("FillTmpEndsInENOSPC", func(t *testing.T) {
		var out struct {
			Written int64  `json:"written"`
			Errno   string `json:"errno"`
		}
		runJSON(t, s, fmt.Sprintf(fill, "'/tmp/fill.bin'")+"\nimport os\nos.remove('/tmp/fill.bin')"+report, &out)
		if out.Errno != "ENOSPC" {
			t.Errorf("filling /tmp: errno %q after %d bytes, want ENOSPC", out.Errno, out.Written)
		}
		if out.Written > tmpSize {
			t.Errorf("wrote %d bytes to a %d-byte /tmp", out.Written, tmpSize)
		}
	})

	t.Run("FillOutputHitsCap", func(t *testing.T) {
		var out struct {
			Written int64  `json:"written"`
			Errno   string `json:"errno"`
		}
		res := runJSON(t, s, fmt.Sprintf(fill, "'/output/fill.bin'")+report, &out)
		var harvested int64
		for _, f := range res.Files {
			harvested += f.Size
		}
		if out.Errno == "" && len(res.Notes) == 0 {
			t.Errorf("256 MiB into a %d-byte /output: no write error and no note", outSize)
		}
		if harvested > outSize || dirBytes(t, outDir) > outSize {
			t.Errorf("harvested %d bytes (host folder %d) over the %d-byte cap", harvested, dirBytes(t, outDir), outSize)
		}
		t.Logf("errno %q after %d bytes; notes %q", out.Errno, out.Written, res.Notes)
		run(t, s, "import os\nos.remove('/output/fill.bin')")
	})

	t.Run("HundredThousandFilesCapped", func(t *testing.T) {
		var out struct {
			Made  int    `json:"made"`
			Errno string `json:"errno"`
		}
		res := runJSON(t, s, `
import os, errno
os.makedirs('/output/many', exist_ok=True)
out = {'made': 0, 'errno': ''}
try:
    for i in range(100000):
        open('/output/many/f%06d' % i, 'wb').close()
        out['made'] += 1
except OSError as e:
    out['errno'] = errno.errorcode.get(e.errno, str(e.errno))
`+report, &out)
		tree := assertHostTreeSafe(t, outDir)
		files := 0
		for _, m := range tree {
			if m.IsRegular() {
				files++
			}
		}
		if len(res.Files) > outFiles || files > outFiles {
			t.Errorf("%d files reported, %d on the host; cap is %d", len(res.Files), files, outFiles)
		}
		if out.Made > outFiles && len(res.Notes) == 0 {
			t.Errorf("%d files made, %d harvested, and no note says the cap was hit", out.Made, len(res.Files))
		}
		t.Logf("made %d (%s), reported %d, on host %d, notes %q", out.Made, out.Errno, len(res.Files), files, res.Notes)
	})
}

func TestAdversarialCPUSpinKilledAtTimeout(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 3 * time.Second})
	res := run(t, s, `
import subprocess
subprocess.Popen(['python3', '-c', 'while True: pass', 'quarry-spin-child'])
while True:
    pass
`)
	if res.Error == nil || res.Error.Kind != kernel.ErrTimeout {
		t.Fatalf("spin cell: error %+v, want timeout", res.Error)
	}
	var out map[string][]string
	runJSON(t, s, psMarked+"out = {'left': marked('quarry-spin' + '-child')}"+report, &out)
	if len(out["left"]) > 0 {
		t.Errorf("processes left after the timeout: %q", out["left"])
	}
}

func TestAdversarialSetsidChildDiesWithKernel(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 30 * time.Second})
	var out map[string][]string
	runJSON(t, s, psMarked+`
import subprocess, time
subprocess.Popen(['python3', '-c', 'import time; time.sleep(3600)', 'quarry-setsid' + '-child'], start_new_session=True)
time.sleep(0.5)
out = {'running': marked('quarry-setsid' + '-child')}
`+report, &out)
	if len(out["running"]) != 1 {
		t.Fatalf("the background child did not start: %v", out)
	}
	if err := s.Restart(testCtx(t)); err != nil {
		t.Fatalf("restart: %v", err)
	}
	runJSON(t, s, psMarked+"out = {'left': marked('quarry-setsid' + '-child')}"+report, &out)
	if len(out["left"]) > 0 {
		t.Errorf("setsid child survived the kernel restart: %q", out["left"])
	}
}
