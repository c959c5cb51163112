package sandbox_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A file far larger than the copy's buffers goes into /data streamed (the
// host does not hold it in memory), intact, onto the engine's disk, with
// its progress reported in order.
func TestAddFileStreamsToDiskWithProgress(t *testing.T) {
	e := sandboxtest.Engine(t)
	s := sandboxtest.Session(t, e, sandbox.Options{})
	lg, err := sandboxtest.WriteLedger(filepath.Join(t.TempDir(), "gl.csv"), 2_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(lg.Path)
	h := sha256.New()
	io.Copy(h, f)
	f.Close()

	var ups []sandbox.Upload
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := s.AddFileProgress(testCtx(t), lg.Path, func(u sandbox.Upload) { ups = append(ups, u) })
	runtime.ReadMemStats(&after)
	if err != nil || p.Error != "" {
		t.Fatalf("AddFileProgress: %v, profile error %q", err, p.Error)
	}
	t.Logf("host alloc %d MB for %d MB; %d events", (after.TotalAlloc-before.TotalAlloc)>>20, lg.Bytes>>20, len(ups))
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(lg.Bytes)/8 {
		t.Errorf("the host allocated %d MB to copy a %d MB file: it is buffered, not streamed", alloc>>20, lg.Bytes>>20)
	}

	if len(ups) < 3 {
		t.Fatalf("progress %+v: want the start, the end of the copy and the profile", ups)
	}
	first, last := ups[0], ups[len(ups)-1]
	if first.Phase != sandbox.UploadCopying || first.Done != 0 || last.Phase != sandbox.UploadProfiling {
		t.Errorf("first %+v, last %+v", first, last)
	}
	copied := false
	for i, u := range ups {
		if u.Name != "gl.csv" || u.Size != lg.Bytes || u.Done > u.Size || (i > 0 && (u.Done < ups[i-1].Done || u.Elapsed < ups[i-1].Elapsed)) {
			t.Fatalf("event %d out of order or wrong: %+v after %+v", i, u, ups[max(i-1, 0)])
		}
		if u.Phase == sandbox.UploadCopying && u.Done == u.Size {
			copied = true
		}
		if u.Phase == sandbox.UploadProfiling && !copied {
			t.Errorf("profiling reported before the copy ended: %+v", ups)
		}
	}

	res := run(t, s, `import hashlib
h = hashlib.sha256()
with open('/data/gl.csv', 'rb') as f:
    for b in iter(lambda: f.read(1 << 20), b''):
        h.update(b)
fs = [l.split(' - ')[1].split()[0] for l in open('/proc/self/mountinfo') if l.split()[4] == '/data']
print(h.hexdigest(), fs)`)
	mustOK(t, res)
	out := strings.Fields(res.Stdout)
	if len(out) != 2 || out[0] != hex.EncodeToString(h.Sum(nil)) {
		t.Errorf("the copy differs from the host file: %q", res.Stdout)
	}
	if len(out) == 2 && (strings.Contains(out[1], "tmpfs") || out[1] == "[]") {
		t.Errorf("/data is on %s: large files need the engine's disk, not memory", out[1])
	}
}
