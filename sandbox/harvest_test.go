package sandbox

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// entry is one crafted tar entry; typ 0 means a regular file.
type entry struct {
	name string
	typ  byte
	body string
	link string
}

func tarOf(t *testing.T, entries ...entry) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o4777, Linkname: e.link, Format: tar.FormatPAX}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("tar header %q: %v", e.name, err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func newTestHarvester(t *testing.T, lim harvestLimits) *harvester {
	t.Helper()
	h, err := newHarvester(filepath.Join(t.TempDir(), "out"), lim, nil)
	if err != nil {
		t.Fatalf("newHarvester: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// hostEntries lists every path in dir, relative, so a test can assert nothing else appeared.
func hostEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugePNG is a real 1×1 PNG whose header claims w×h pixels (with a correct CRC).
func hugePNG(t *testing.T, w, h uint32) []byte {
	b := pngBytes(t, 1, 1)
	ihdr := b[8+8 : 8+8+13] // after signature, length and "IHDR"
	binary.BigEndian.PutUint32(ihdr[0:4], w)
	binary.BigEndian.PutUint32(ihdr[4:8], h)
	binary.BigEndian.PutUint32(b[8+8+13:], crc32.ChecksumIEEE(b[8+4:8+8+13]))
	return b
}

func TestHarvestRegularFile(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	files, notes, err := h.fromTar(tarOf(t,
		entry{name: "output/", typ: tar.TypeDir},
		entry{name: "output/result.csv", body: "a,b\n1,2\n"},
		entry{name: "output/sub/", typ: tar.TypeDir},
		entry{name: "output/sub/deep.txt", body: "x"},
	), nil)
	if err != nil || len(notes) != 0 {
		t.Fatalf("fromTar: err=%v notes=%q", err, notes)
	}
	if len(files) != 2 || files[0].Name != "result.csv" || files[0].Size != 8 || files[1].Name != "sub/deep.txt" {
		t.Fatalf("files = %+v", files)
	}
	got, err := os.ReadFile(files[0].Path)
	if err != nil || string(got) != "a,b\n1,2\n" {
		t.Fatalf("content %q, %v", got, err)
	}
	fi, _ := os.Stat(files[0].Path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 whatever the archive says (no setuid, no exec)", fi.Mode())
	}
	if filepath.Dir(files[0].Path) != h.Dir() {
		t.Errorf("path %s not in %s", files[0].Path, h.Dir())
	}
}

func TestHarvestSkipsNonRegularAndBadNames(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("original"), 0o600)
	cases := []struct {
		name string
		e    entry
		note string
	}{
		{"symlink to host path", entry{name: "output/link", typ: tar.TypeSymlink, link: victim}, "symlink"},
		{"relative ../ symlink", entry{name: "output/up", typ: tar.TypeSymlink, link: "../../../etc/passwd"}, "symlink"},
		{"hard link", entry{name: "output/hard", typ: tar.TypeLink, link: "output/real"}, "hard link"},
		{"char device", entry{name: "output/null", typ: tar.TypeChar}, "device"},
		{"block device", entry{name: "output/sda", typ: tar.TypeBlock}, "device"},
		{"FIFO named chart.png", entry{name: "output/chart.png", typ: tar.TypeFifo}, "FIFO"},
		{"dot-dot", entry{name: "output/../escape.txt", body: "x"}, "'..'"},
		{"dot-dot deep", entry{name: "output/a/../../escape.txt", body: "x"}, "'..'"},
		{"absolute", entry{name: "/etc/cron.d/x", body: "x"}, "outside the output folder"},
		{"absolute after prefix", entry{name: "output//etc/passwd", body: "x"}, "absolute"},
		{"other root", entry{name: "etc/passwd", body: "x"}, "outside the output folder"},
		{"newline", entry{name: "output/a\nb.txt", body: "x"}, "U+000A"},
		{"escape sequence", entry{name: "output/\x1b]52;c;aGk=\x07.txt", body: "x"}, "U+001B"},
		{"C1 CSI", entry{name: "output/\u009b2J.txt", body: "x"}, "U+009B"},
		{"bidi override", entry{name: "output/evil\u202egnp.exe", body: "x"}, "U+202E"},
		{"invalid UTF-8", entry{name: "output/\xff\xfe.txt", body: "x"}, "UTF-8"},
		{"backslash", entry{name: "output/..\\..\\x", body: "x"}, "U+005C"},
		{"too deep", entry{name: "output/1/2/3/4/5/6/7/8/9.txt", body: "x"}, "deep"},
		{"reserved temp name", entry{name: "output/.quarry-tmp-1", body: "x"}, "reserved"},
		{"long component", entry{name: "output/" + strings.Repeat("a", 300), body: "x"}, "longer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newTestHarvester(t, harvestLimits{})
			files, notes, err := h.fromTar(tarOf(t, c.e), nil)
			if err != nil {
				t.Fatalf("fromTar: %v", err)
			}
			if len(files) != 0 {
				t.Fatalf("files = %+v, want none", files)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], c.note) {
				t.Fatalf("notes = %q, want one containing %q", notes, c.note)
			}
			if strings.ContainsAny(notes[0], "\x00\x1b\n\u009b\u202e") {
				t.Errorf("note carries raw control characters: %q", notes[0])
			}
			if got := hostEntries(t, h.Dir()); len(got) != 0 {
				t.Errorf("host folder has %q, want nothing", got)
			}
			if b, _ := os.ReadFile(victim); string(b) != "original" {
				t.Errorf("host file changed: %q", b)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(h.Dir()), "escape.txt")); err == nil {
				t.Errorf("escape.txt written outside the folder")
			}
		})
	}
}

// A NUL cannot travel in a tar name (readers stop at it, PAX writers refuse
// it), so the name rule is checked directly.
func TestValidNameNUL(t *testing.T) {
	if err := validName("a\x00b.txt", 8); err == nil || !strings.Contains(err.Error(), "U+0000") {
		t.Fatalf("validName with NUL: %v", err)
	}
}

func TestHarvestSymlinkThenRegularFileSameName(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(victim, []byte("original"), 0o600)
	h := newTestHarvester(t, harvestLimits{})
	h.fromTar(tarOf(t, entry{name: "output/x.csv", typ: tar.TypeSymlink, link: victim}), nil)
	files, notes, err := h.fromTar(tarOf(t, entry{name: "output/x.csv", body: "pwned"}), nil)
	if err != nil || len(files) != 1 || len(notes) != 0 {
		t.Fatalf("files=%+v notes=%q err=%v", files, notes, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "original" {
		t.Fatalf("host file changed: %q", b)
	}
	if fi, _ := os.Lstat(files[0].Path); !fi.Mode().IsRegular() {
		t.Fatalf("harvested %s is %v, want a regular file", files[0].Path, fi.Mode())
	}
}

func TestHarvestPNG(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	files, notes, err := h.fromTar(tarOf(t,
		entry{name: "output/ok.png", body: string(pngBytes(t, 30, 20))},
		entry{name: "output/huge.png", body: string(hugePNG(t, 100000, 100000))},
		entry{name: "output/fake.PNG", body: "GIF89a not a png"},
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("files = %+v", files)
	}
	if files[0].Width != 30 || files[0].Height != 20 {
		t.Errorf("ok.png = %dx%d, want 30x20", files[0].Width, files[0].Height)
	}
	for _, f := range files[1:] {
		if f.Width != 0 || f.Height != 0 {
			t.Errorf("%s has dimensions %dx%d; an invalid PNG must not be displayable", f.Name, f.Width, f.Height)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "100000×100000") || !strings.Contains(notes[1], "signature") {
		t.Errorf("notes = %q", notes)
	}
}

func TestCheckPNG(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"valid", pngBytes(t, 10, 10), true},
		{"max side", hugePNG(t, 10000, 4000), true},
		{"100000 square", hugePNG(t, 100000, 100000), false},
		{"one side too long", hugePNG(t, 10001, 1), false},
		{"area too large", hugePNG(t, 9000, 9000), false},
		{"zero", hugePNG(t, 0, 10), false},
		{"signature only", []byte("\x89PNG\r\n\x1a\n"), false},
		{"empty", nil, false},
		{"jpeg", []byte("\xff\xd8\xff\xe0"), false},
	} {
		if _, _, err := kernel.CheckPNG(c.data); (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestHarvestCaps(t *testing.T) {
	t.Run("file count", func(t *testing.T) {
		h := newTestHarvester(t, harvestLimits{MaxFiles: 3})
		var es []entry
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			es = append(es, entry{name: "output/" + n, body: n})
		}
		files, notes, err := h.fromTar(tarOf(t, es...), nil)
		if err != nil || len(files) != 3 || len(notes) != 1 || !strings.Contains(notes[0], "file cap of 3") {
			t.Fatalf("files=%d notes=%q err=%v", len(files), notes, err)
		}
		// The cap is per session, across harvests.
		files, notes, _ = h.fromTar(tarOf(t, entry{name: "output/f", body: "f"}), nil)
		if len(files) != 0 || len(notes) != 1 {
			t.Fatalf("second harvest: files=%d notes=%q", len(files), notes)
		}
		// A replacement of one of our own files still fits.
		if files, notes, _ := h.fromTar(tarOf(t, entry{name: "output/a", body: "A2"}), nil); len(files) != 1 {
			t.Fatalf("replace own file under the cap: notes %q", notes)
		}
	})
	t.Run("total size", func(t *testing.T) {
		h := newTestHarvester(t, harvestLimits{MaxBytes: 10})
		files, notes, _ := h.fromTar(tarOf(t,
			entry{name: "output/a", body: "123456"},
			entry{name: "output/b", body: "123456"},
			entry{name: "output/c", body: "1"},
		), nil)
		if len(files) != 1 || len(notes) != 1 || !strings.Contains(notes[0], "size cap of 10") {
			t.Fatalf("files=%+v notes=%q", files, notes)
		}
		if got := hostEntries(t, h.Dir()); len(got) != 1 {
			t.Fatalf("host has %q; a refused file must leave nothing", got)
		}
	})
	t.Run("one file", func(t *testing.T) {
		h := newTestHarvester(t, harvestLimits{MaxFileBytes: 4})
		files, notes, _ := h.fromTar(tarOf(t, entry{name: "output/big", body: "12345"}, entry{name: "output/ok", body: "1234"}), nil)
		if len(files) != 1 || files[0].Name != "ok" || len(notes) != 1 || !strings.Contains(notes[0], "cap for one file") {
			t.Fatalf("files=%+v notes=%q", files, notes)
		}
	})
	t.Run("many bad entries give few notes", func(t *testing.T) {
		h := newTestHarvester(t, harvestLimits{MaxFiles: 1000})
		var es []entry
		for i := 0; i < 500; i++ {
			es = append(es, entry{name: "output/l" + strings.Repeat("x", i%50) + string(rune('a'+i%26)), typ: tar.TypeSymlink, link: "/"})
		}
		_, notes, _ := h.fromTar(tarOf(t, es...), nil)
		if len(notes) != maxNotes+1 || !strings.Contains(notes[maxNotes], "more skipped") {
			t.Fatalf("%d notes, last %q", len(notes), notes[len(notes)-1])
		}
	})
}

func TestHarvestWant(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	files, _, _ := h.fromTar(tarOf(t, entry{name: "output/old.csv", body: "1"}, entry{name: "output/new.csv", body: "2"}), map[string]bool{"new.csv": true})
	if len(files) != 1 || files[0].Name != "new.csv" {
		t.Fatalf("files = %+v", files)
	}
	// Unwanted entries (old intermediate files) do not use up the entry budget.
	h = newTestHarvester(t, harvestLimits{MaxFiles: 1})
	var es []entry
	for i := 0; i < 500; i++ {
		es = append(es, entry{name: fmt.Sprintf("output/old%d", i), body: "x"})
	}
	es = append(es, entry{name: "output/last.csv", body: "1"})
	files, notes, _ := h.fromTar(tarOf(t, es...), map[string]bool{"last.csv": true})
	if len(files) != 1 || len(notes) != 0 {
		t.Fatalf("wanted file after 500 unwanted ones: files=%+v notes=%q", files, notes)
	}
}

func TestHarvestNeverOverwritesHostFile(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	mine := filepath.Join(h.Dir(), "report.csv")
	os.WriteFile(mine, []byte("the user's own"), 0o600)
	files, notes, err := h.fromTar(tarOf(t, entry{name: "output/report.csv", body: "evil"}), nil)
	if err != nil || len(files) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "never overwritten") {
		t.Fatalf("files=%+v notes=%q err=%v", files, notes, err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "the user's own" {
		t.Fatalf("host file overwritten: %q", b)
	}
	if _, err := h.writeFile("report.csv", []byte("evil")); err == nil {
		t.Fatal("writeFile overwrote a file it did not write")
	}
}

func TestHarvestReplacesOwnFile(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{MaxBytes: 100})
	for _, body := range []string{"first version", "v2"} {
		files, notes, err := h.fromTar(tarOf(t, entry{name: "output/sub/r.txt", body: body}), nil)
		if err != nil || len(files) != 1 || len(notes) != 0 {
			t.Fatalf("files=%+v notes=%q err=%v", files, notes, err)
		}
		if b, _ := os.ReadFile(files[0].Path); string(b) != body {
			t.Fatalf("content %q, want %q", b, body)
		}
	}
	if h.bytes != 2 {
		t.Errorf("accounted bytes = %d, want 2 (the replaced version no longer counts)", h.bytes)
	}
	if got := hostEntries(t, h.Dir()); strings.Join(got, ",") != "sub,sub/r.txt" {
		t.Errorf("host entries %q: temp files left behind?", got)
	}
}

func TestHarvestPlantedHostSymlinkNotFollowed(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("original"), 0o600)
	h := newTestHarvester(t, harvestLimits{})
	// Someone (not the harvester) planted links in the host output folder.
	os.Symlink(victim, filepath.Join(h.Dir(), "chart.csv"))
	os.Symlink(outside, filepath.Join(h.Dir(), "sub"))
	os.Symlink("sub", filepath.Join(h.Dir(), "inner")) // a link that stays inside is refused too
	files, notes, err := h.fromTar(tarOf(t,
		entry{name: "output/chart.csv", body: "evil"},
		entry{name: "output/sub/new.txt", body: "evil"},
		entry{name: "output/inner/new.txt", body: "evil"},
	), nil)
	if err != nil || len(files) != 0 || len(notes) != 3 {
		t.Fatalf("files=%+v notes=%q err=%v", files, notes, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "original" {
		t.Fatalf("host file changed through a planted symlink: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("file written through a planted folder symlink")
	}
	// Even if the Lstat check were bypassed, os.Root refuses the escape.
	if _, err := h.root.OpenFile("sub/direct.txt", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		t.Fatal("os.Root followed a symlink out of the folder")
	}
}

func TestHarvestWriteFile(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	f, err := h.writeFile("figures/cell3-1.png", pngBytes(t, 64, 48))
	if err != nil || f.Width != 64 || f.Height != 48 || f.Name != "figures/cell3-1.png" {
		t.Fatalf("writeFile: %+v, %v", f, err)
	}
	if _, err := h.writeFile("figures/bomb.png", hugePNG(t, 100000, 100000)); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Fatalf("huge figure: err = %v", err)
	}
	for _, bad := range []string{"../x.png", "/abs.png", "a\x1b[2J.png", ""} {
		if _, err := h.writeFile(bad, []byte("x")); err == nil {
			t.Errorf("writeFile(%q) accepted", bad)
		}
	}
	if got := hostEntries(t, h.Dir()); strings.Join(got, ",") != "figures,figures/cell3-1.png" {
		t.Errorf("host entries %q", got)
	}
}

// A file from /output must not replace a figure (the front end opens figures
// in the system viewer), nor a figure a file from /output.
func TestHarvestFiguresAndOutputFilesNeverReplaceEachOther(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	fig := pngBytes(t, 8, 8)
	if _, err := h.writeFile("figures/cell1-1.png", fig); err != nil {
		t.Fatal(err)
	}
	files, notes, _ := h.fromTar(tarOf(t, entry{name: "output/figures/cell1-1.png", body: "[Desktop Entry]"}), nil)
	if len(files) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "never overwritten") {
		t.Fatalf("an /output file replaced a figure: files=%+v notes=%q", files, notes)
	}
	if b, _ := os.ReadFile(filepath.Join(h.Dir(), "figures", "cell1-1.png")); !bytes.Equal(b, fig) {
		t.Fatal("figure content changed")
	}
	if _, _, err := h.fromTar(tarOf(t, entry{name: "output/figures/cell2-1.png", body: "x"}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.writeFile("figures/cell2-1.png", fig); err == nil {
		t.Fatal("a figure replaced a file harvested from /output")
	}
	if _, err := h.writeFile("figures/cell1-1.png", pngBytes(t, 9, 9)); err != nil {
		t.Fatalf("a figure could not replace an earlier figure of the same name: %v", err)
	}
}

func TestNewHarvesterFolder(t *testing.T) {
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.Mkdir(full, 0o700)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o600)
	if _, err := newHarvester(full, harvestLimits{}, nil); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty folder: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(t.TempDir(), link)
	if _, err := newHarvester(link, harvestLimits{}, nil); err == nil {
		t.Error("a symlink in place of the output folder was accepted")
	}
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o700)
	h, err := newHarvester(empty, harvestLimits{}, nil)
	if err != nil {
		t.Fatalf("empty folder: %v", err)
	}
	h.Close()
	h, err = newHarvester(filepath.Join(base, "fresh"), harvestLimits{}, nil)
	if err != nil {
		t.Fatalf("fresh folder: %v", err)
	}
	defer h.Close()
	if fi, _ := os.Stat(h.Dir()); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", fi.Mode())
	}
}

func TestHarvestTruncatedStream(t *testing.T) {
	h := newTestHarvester(t, harvestLimits{})
	b := tarOf(t, entry{name: "output/a", body: "aaaa"}, entry{name: "output/b", body: strings.Repeat("b", 2000)}).Bytes()
	_, _, err := h.fromTar(bytes.NewReader(b[:1536+200]), nil)
	if err == nil {
		t.Fatal("truncated archive: no error")
	}
	for _, e := range hostEntries(t, h.Dir()) {
		if e == "b" {
			t.Error("a partly received file was left on the host")
		}
	}
}

// BenchmarkHarvest1000Files measures the host cost of a full-cap harvest:
// 1000 files of 4 KiB through os.Root with O_EXCL.
func BenchmarkHarvest1000Files(b *testing.B) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := bytes.Repeat([]byte("x"), 4096)
	for i := 0; i < 1000; i++ {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("output/d%d/f%d.csv", i%10, i), Typeflag: tar.TypeReg, Size: int64(len(body)), Mode: 0o644})
		tw.Write(body)
	}
	tw.Close()
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		h, err := newHarvester(filepath.Join(b.TempDir(), "out"), harvestLimits{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		files, _, err := h.fromTar(bytes.NewReader(buf.Bytes()), nil)
		if err != nil || len(files) != 1000 {
			b.Fatalf("%d files, %v", len(files), err)
		}
		h.Close()
	}
}
