package sandbox_test

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/sandbox"
)

// Hostile files in /output: links, special files, lying PNGs and names made
// of escape sequences. After every cell the host output folder must hold only
// regular files and folders, and nothing outside it may change.
func TestAdversarialOutputFiles(t *testing.T) {
	s, outDir := advSession(t, sandbox.Options{Timeout: 60 * time.Second})
	victimDir := t.TempDir()
	victim := filepath.Join(victimDir, "secret.txt")
	if err := os.WriteFile(victim, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	victimUntouched := func(t *testing.T) {
		t.Helper()
		if b, err := os.ReadFile(victim); err != nil || string(b) != "original" {
			t.Errorf("host file outside the output folder changed: %q, %v", b, err)
		}
		if entries, _ := os.ReadDir(victimDir); len(entries) != 1 {
			t.Errorf("host folder outside the output folder gained entries: %v", entries)
		}
	}

	t.Run("SymlinkToHostPathThenRegularFile", func(t *testing.T) {
		res := run(t, s, "import os\nos.symlink("+pyStr(victim)+", '/output/report.csv')\nos.symlink('/etc/passwd', '/output/passwd.txt')")
		mustOK(t, res)
		for _, name := range []string{"report.csv", "passwd.txt"} {
			if _, ok := hasFile(res.Files, name); ok {
				t.Errorf("symlink %s was harvested", name)
			}
		}
		assertHostTreeSafe(t, outDir)
		victimUntouched(t)
		res = run(t, s, "import os\nos.remove('/output/report.csv')\nopen('/output/report.csv', 'w').write('pwned')")
		mustOK(t, res)
		f, ok := hasFile(res.Files, "report.csv")
		if !ok {
			t.Fatalf("the regular file replacing the symlink was not harvested: %v %q", fileNames(res.Files), res.Notes)
		}
		if b, _ := os.ReadFile(f.Path); string(b) != "pwned" || filepath.Dir(f.Path) != outDir {
			t.Errorf("harvested %s = %q", f.Path, b)
		}
		assertHostTreeSafe(t, outDir)
		victimUntouched(t)
	})

	t.Run("HostFileAndPlantedHostSymlinkNeverWritten", func(t *testing.T) {
		// Someone on the host put a file and a link into the session folder mid-session.
		mine := filepath.Join(outDir, "notes.csv")
		if err := os.WriteFile(mine, []byte("the user's own"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(outDir, "planted.csv")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victimDir, filepath.Join(outDir, "planted-dir")); err != nil {
			t.Fatal(err)
		}
		res := run(t, s, `
import os
os.makedirs('/output/planted-dir', exist_ok=True)
for n in ('notes.csv', 'planted.csv', 'planted-dir/new.txt'):
    open('/output/' + n, 'w').write('pwned')
`)
		mustOK(t, res)
		if len(res.Files) != 0 || len(res.Notes) < 3 {
			t.Errorf("files %v notes %q: all three must be refused with a note", fileNames(res.Files), res.Notes)
		}
		if b, _ := os.ReadFile(mine); string(b) != "the user's own" {
			t.Errorf("host file overwritten: %q", b)
		}
		victimUntouched(t)
		os.Remove(mine)
		os.Remove(filepath.Join(outDir, "planted.csv"))
		os.Remove(filepath.Join(outDir, "planted-dir"))
	})

	t.Run("RelativeDotDotSymlink", func(t *testing.T) {
		res := run(t, s, `
import os
os.makedirs('/output/sub', exist_ok=True)
os.symlink('../../../../../../`+strings.TrimPrefix(victim, "/")+`', '/output/sub/up.txt')
os.symlink('..', '/output/parent')
os.symlink('/', '/output/rootdir')
open('/output/sub/plain.txt', 'w').write('ok')
`)
		mustOK(t, res)
		if _, ok := hasFile(res.Files, "sub/plain.txt"); !ok {
			t.Errorf("the plain file beside the links was not harvested: %v", fileNames(res.Files))
		}
		for _, f := range res.Files {
			if strings.Contains(f.Name, "up.txt") || strings.HasPrefix(f.Name, "parent") || strings.HasPrefix(f.Name, "rootdir") {
				t.Errorf("link %s harvested", f.Name)
			}
		}
		assertHostTreeSafe(t, outDir)
		victimUntouched(t)
	})

	t.Run("HardLink", func(t *testing.T) {
		res := run(t, s, `
import os
open('/output/orig.txt', 'w').write('data')
os.link('/output/orig.txt', '/output/hard.txt')
out = []
for src in ('/etc/passwd', '/tmp'):
    try:
        os.link(src, '/output/x-' + os.path.basename(src))
        out.append(src + ' linked')
    except OSError as e:
        out.append(src + ' ' + type(e).__name__)
print(out)
`)
		mustOK(t, res)
		if strings.Contains(res.Stdout, "passwd linked") {
			t.Errorf("a hard link from /output to /etc/passwd was made: %s", res.Stdout)
		}
		tree := assertHostTreeSafe(t, outDir) // each host file has exactly one link
		if _, ok := tree["x-passwd"]; ok {
			t.Error("x-passwd reached the host")
		}
	})

	t.Run("FIFONamedChartPNGDoesNotBlock", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := s.Exec(ctx, "import os\nos.mkfifo('/output/chart.png')\nopen('/output/after.txt', 'w').write('ok')", nil)
		if err != nil {
			t.Fatalf("exec with a FIFO in /output: %v (ctx: %v)", err, ctx.Err())
		}
		mustOK(t, res)
		if _, ok := hasFile(res.Files, "chart.png"); ok {
			t.Error("the FIFO was harvested")
		}
		if _, ok := hasFile(res.Files, "after.txt"); !ok {
			t.Errorf("the regular file next to the FIFO was not harvested: %v %q", fileNames(res.Files), res.Notes)
		}
		assertHostTreeSafe(t, outDir)
		run(t, s, "import os\nos.remove('/output/chart.png')")
	})

	t.Run("PNGDeclaring100000x100000", func(t *testing.T) {
		res := run(t, s, `
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 0, 0, 0, 0))
png += chunk(b'IDAT', zlib.compress(b'\0' * 1024)) + chunk(b'IEND', b'')
open('/output/bomb.png', 'wb').write(png)
`)
		mustOK(t, res)
		for _, f := range append(res.Files, res.Figures...) {
			if f.Width != 0 || f.Height != 0 {
				if f.Width > 10000 || f.Height > 10000 {
					t.Errorf("%s accepted as a %d×%d image", f.Name, f.Width, f.Height)
				}
			}
		}
		if f, ok := hasFile(res.Files, "bomb.png"); ok && f.Width != 0 {
			t.Errorf("bomb.png has dimensions %d×%d: it would be displayed", f.Width, f.Height)
		}
		if w, h, err := kernel.CheckPNG(mustRead(t, filepath.Join(outDir, "bomb.png"))); err == nil && (w > 10000 || h > 10000) {
			t.Errorf("kernel.CheckPNG accepted %d×%d", w, h)
		}
	})

	t.Run("FileNamesWithEscapeSequences", func(t *testing.T) {
		res := run(t, s, `
names = ['\x1b]52;c;cm0gLXJmIH4K\x07.csv', '\x1b[2J\x1b[H.txt', 'line\nbreak.txt', '\u202eevil.txt', 'c1\x9b2J.txt',
         'tab\there.txt', 'bell\x07.txt', 'ok name.txt']
made = []
for n in names:
    try:
        open('/output/' + n, 'w').write('x')
        made.append(n)
    except OSError:
        pass
print(len(made))
`)
		mustOK(t, res)
		names := fileNames(res.Files)
		if len(names) != 1 || names[0] != "ok name.txt" {
			t.Errorf("harvested %q, want only \"ok name.txt\"", names)
		}
		for name := range assertHostTreeSafe(t, outDir) {
			if strings.ContainsAny(name, "\x1b\x07\n\t\u009b\u202e") {
				t.Errorf("host file name with a control character: %q", name)
			}
		}
		for _, n := range res.Notes {
			if strings.ContainsAny(n, "\x1b\x07\u009b") {
				t.Errorf("a note carries a raw escape: %q", n)
			}
		}
	})
}

// User code shares a process with the kernel and can write to its protocol
// fd: a forged result frame naming files outside /output, a PNG bomb as a
// figure and escapes in notes must change nothing outside the output folder.
func TestAdversarialForgedProtocolFrame(t *testing.T) {
	s, outDir := advSession(t, sandbox.Options{Timeout: 30 * time.Second})
	forged := "quarry-forged-" + filepath.Base(t.TempDir())
	res, err := s.Exec(testCtx(t), `
import gc, json, os, struct, base64, zlib
g = next(o for o in gc.get_objects() if isinstance(o, dict) and 'QOUT' in o and 'state' in o)
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 0, 0, 0, 0)) + chunk(b'IEND', b'')
open('/output/real.txt', 'w').write('real')
frame = {'t': 'result', 'id': g['state'].cell, 'value': {'repr': 'forged'}, 'error': None,
         'figures': [base64.b64encode(png).decode()],
         'files': ['../../../../../../tmp/`+forged+`', '/etc/passwd', 'real.txt', 'x\x1b[2J'],
         'dropped': 0, 'notes': ['\x1b]52;c;cGF3bmVk\x07'], 'seconds': 0}
data = json.dumps(frame).encode()
os.write(g['QOUT'], struct.pack('>I', len(data)) + data)
`, nil)
	if err != nil {
		t.Fatalf("exec with a forged frame: %v", err)
	}
	for _, f := range append(res.Figures, res.Files...) {
		if f.Width > 10000 || f.Height > 10000 || filepath.Dir(f.Path) == "/tmp" || !strings.HasPrefix(f.Path, outDir+string(filepath.Separator)) {
			t.Errorf("forged frame produced %+v", f)
		}
	}
	for _, p := range []string{filepath.Join("/tmp", forged), filepath.Join(os.TempDir(), forged)} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("forged frame wrote %s on the host", p)
		}
	}
	assertHostTreeSafe(t, outDir)
	res = run(t, s, "print('alive')")
	if !strings.Contains(res.Stdout, "alive") {
		t.Errorf("session after a forged frame: %q %+v", res.Stdout, res.Error)
	}
}

// The user's files are never modified and only their base names are visible;
// hostile CSV headers arrive as data for render to sanitize.
func TestAdversarialInputs(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "adversarial", "escape_headers.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "private-host-folder")
	os.Mkdir(dir, 0o700)
	input := filepath.Join(dir, "headers.csv")
	if err := os.WriteFile(input, src, 0o644); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256(src)
	s, _ := advSession(t, sandbox.Options{Timeout: 60 * time.Second})
	prof, err := s.AddFile(testCtx(t), input)
	if err != nil {
		t.Fatalf("AddFile: %v", err)
	}

	t.Run("CSVHeadersWithEscapeSequences", func(t *testing.T) {
		if prof.Path != "/data/headers.csv" || prof.Name != "headers.csv" {
			t.Errorf("profile name %q path %q, want the base name under /data", prof.Name, prof.Path)
		}
		if len(prof.Columns) != 3 {
			t.Fatalf("profile columns %+v (error %q)", prof.Columns, prof.Error)
		}
		raw := false
		for _, c := range prof.Columns {
			raw = raw || strings.Contains(c.Name, "\x1b")
			if clean := render.SanitizeLine(c.Name); strings.ContainsAny(clean, "\x1b\x07\u009b\n") {
				t.Errorf("render.SanitizeLine(%q) = %q", c.Name, clean)
			}
		}
		if !raw {
			t.Logf("column names were cleaned inside the sandbox: %+v", prof.Columns)
		}
	})

	t.Run("InputsReadOnlyAndUnchanged", func(t *testing.T) {
		var out map[string]string
		runJSON(t, s, `
import os
out = {}
for name, fn in (('write', lambda: open('/data/headers.csv', 'a').write('x')),
                 ('chmod', lambda: os.chmod('/data/headers.csv', 0o777)),
                 ('remove', lambda: os.remove('/data/headers.csv')),
                 ('rename', lambda: os.rename('/data/headers.csv', '/data/h2.csv')),
                 ('create', lambda: open('/data/new.csv', 'w').write('x')),
                 ('truncate', lambda: os.truncate('/data/headers.csv', 0))):
    try:
        fn()
        out[name] = 'done'
    except OSError as e:
        out[name] = type(e).__name__
`+report, &out)
		for k, v := range out {
			if v == "done" {
				t.Errorf("%s on /data/headers.csv succeeded", k)
			}
		}
		after, _ := os.ReadFile(input)
		if sha256.Sum256(after) != before {
			t.Error("the user's input file changed")
		}
		if fi, _ := os.Stat(input); fi.Mode().Perm() != 0o644 {
			t.Errorf("input mode changed to %v", fi.Mode())
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("the input's folder gained entries: %v", entries)
		}
	})
}

// Nothing of one session is visible to the next: not /output, not /tmp, not
// the host output folder.
func TestAdversarialSessionsIsolated(t *testing.T) {
	a, outA := advSession(t, sandbox.Options{Timeout: 30 * time.Second})
	res := run(t, a, "open('/output/a-secret.txt', 'w').write('A')\nopen('/tmp/a-secret.txt', 'w').write('A')")
	mustOK(t, res)
	b, outB := advSession(t, sandbox.Options{Timeout: 30 * time.Second})
	var out map[string]any
	runJSON(t, b, `
import os
out = {'output': os.listdir('/output'), 'tmp': os.listdir('/tmp'), 'found': []}
for root, dirs, files in os.walk('/'):
    if root in ('/proc', '/sys', '/usr', '/dev'):
        dirs[:] = []
        continue
    out['found'] += [os.path.join(root, f) for f in files if 'a-secret' in f]
`+report, &out)
	if found, _ := out["found"].([]any); len(found) > 0 {
		t.Errorf("session B sees session A's files: %v", found)
	}
	if outA == outB {
		t.Error("two sessions share a host output folder")
	}
	if _, err := os.Stat(filepath.Join(outB, "a-secret.txt")); err == nil {
		t.Error("session A's file is in session B's host folder")
	}
	t.Logf("session B: %v", out)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}
