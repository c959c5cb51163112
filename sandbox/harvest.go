package sandbox

import (
	"archive/tar"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quarry-cli/quarry/kernel"
)

// The harvest is the only way bytes from the container reach the host disk.
// Everything in the tar stream is hostile: names, types, sizes and contents.
// Escapes in comparable tools came through the host's handling of files the
// sandbox controlled (symlink and cp CVEs), so every write goes through an
// os.Root, creates with O_EXCL, and never creates or follows a link.

// harvestLimits caps what one session may bring onto the host.
type harvestLimits struct {
	MaxFiles     int   // files per session (default 1000)
	MaxBytes     int64 // total bytes per session (default = Limits.OutputSize)
	MaxFileBytes int64 // one file (default 512 MiB)
	MaxDepth     int   // path components below /output (default 8)
}

const (
	defaultMaxFileBytes = 512 << 20
	defaultMaxDepth     = 8
	maxNameBytes        = 1024 // whole relative name
	maxComponentBytes   = 255  // one path component (NAME_MAX)
	maxNotes            = 20   // notes per call before they are summarised
	pngSniffBytes       = 64 << 10
	tmpPrefix           = ".quarry-tmp-"
)

func (l harvestLimits) withDefaults() harvestLimits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultLimits.OutputFiles
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.OutputSize
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = defaultMaxFileBytes
	}
	if l.MaxFileBytes > l.MaxBytes {
		l.MaxFileBytes = l.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = defaultMaxDepth
	}
	return l
}

// harvester writes untrusted files into one fresh per-session host folder, through os.Root,
// never following or creating links, never overwriting a file it did not write itself.
type harvester struct {
	dir  string
	root *os.Root
	lim  harvestLimits

	mu      sync.Mutex
	written map[string]int64       // names this harvester wrote -> current size
	figures map[string]bool        // the subset written by writeFile: /output files never replace them
	version map[string]int         // writes per name, so a checkpoint can tell what changed since
	left    map[string]os.FileInfo // each as the harvest left it: changed on the host since, it is no longer ours
	bytes   int64                  // sum of written
}

// errSkip marks a file that was not written for a reason worth a note, not a failure of the harvest.
var errSkip = errors.New("skipped")

// newHarvester creates dir (0700, must not exist yet or be empty) and opens it as an os.Root.
// With earlier, dir may hold files: those earlier lists count as written by this harvester.
func newHarvester(dir string, lim harvestLimits, earlier *Earlier) (*harvester, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("output folder %s: %w", dir, err)
	}
	if err := os.Mkdir(abs, 0o700); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("output folder: %w", err)
		}
		// Lstat: an existing symlink in place of the folder is refused, not followed.
		fi, err := os.Lstat(abs)
		if err != nil {
			return nil, fmt.Errorf("output folder: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("output folder %s exists and is not a folder: choose a new folder", abs)
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, fmt.Errorf("output folder: %w", err)
		}
		if len(entries) > 0 && earlier == nil {
			return nil, fmt.Errorf("output folder %s is not empty: choose a new or empty folder", abs)
		}
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	h := &harvester{dir: abs, root: root, lim: lim.withDefaults(), written: map[string]int64{}, figures: map[string]bool{},
		version: map[string]int{}, left: map[string]os.FileInfo{}}
	if earlier != nil {
		h.adopt(earlier.Files, false)
		h.adopt(earlier.Figures, true)
	}
	return h, nil
}

// adopt counts files an earlier process harvested as this harvester's own,
// by their recorded name and size; a name that is not valid, or a file
// that is no longer the size recorded (changed on the host since), is not.
func (h *harvester) adopt(files []kernel.File, figure bool) {
	for _, f := range files {
		if validName(f.Name, h.lim.MaxDepth) != nil || h.hasWritten(f.Name) {
			continue
		}
		fi, err := h.root.Lstat(f.Name)
		switch {
		case err == nil && fi.Mode().IsRegular() && fi.Size() == f.Size:
			h.left[f.Name] = fi
		case errors.Is(err, fs.ErrNotExist):
		default:
			continue
		}
		h.written[f.Name] = f.Size
		h.version[f.Name] = 1
		h.bytes += f.Size
		if figure {
			h.figures[f.Name] = true
		}
	}
}

// Dir is the host folder the harvester writes into.
func (h *harvester) Dir() string { return h.dir }

// Close releases the root. Files stay on disk.
func (h *harvester) Close() error { return h.root.Close() }

// fromTar reads a tar stream as returned by CopyFromContainer(ctx, id, {SourcePath: "/output"}):
// entry names are "output/<rel>". Only regular files whose <rel> is in want (nil = all) are
// written; every other entry type (symlink, hard link, device, FIFO, dir) is skipped without
// touching the host; bad names (.., absolute, NUL/control chars, too deep) are skipped.
// It returns the files written and notes (one short line per skipped thing or cap hit).
// A non-nil error means the stream itself broke; files and notes up to that point are valid.
func (h *harvester) fromTar(r io.Reader, want map[string]bool) ([]kernel.File, []string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var (
		files []kernel.File
		notes noteList
		tr    = tar.NewReader(r)
	)
	// Bound the work on streams of many tiny or skipped entries, too: entries
	// considered (wanted) and entries read at all.
	maxConsidered, maxRead := 4*h.lim.MaxFiles+100, 100*h.lim.MaxFiles+100000
	considered := 0
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, notes.list(), fmt.Errorf("output harvest: read archive: %w", err)
		}
		if n >= maxRead {
			notes.add(fmt.Sprintf("output: stopped after %d entries; the rest was not harvested", maxRead))
			break
		}
		rel, isRoot, ok := tarRel(hdr.Name)
		if isRoot {
			continue
		}
		if !ok {
			notes.add(fmt.Sprintf("skipped %q: entry outside the output folder", hdr.Name))
			continue
		}
		if want != nil && !want[rel] {
			continue
		}
		if considered++; considered > maxConsidered {
			notes.add(fmt.Sprintf("output: stopped after %d entries; the rest was not harvested", maxConsidered))
			break
		}
		if hdr.Typeflag == tar.TypeDir {
			continue // folders are created as files need them
		}
		if err := validName(rel, h.lim.MaxDepth); err != nil {
			notes.add(fmt.Sprintf("skipped %q: %v", rel, err))
			continue
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA {
			notes.add(fmt.Sprintf("skipped %q: %s, only regular files are harvested", rel, typeName(hdr.Typeflag)))
			continue
		}
		if len(h.written) >= h.lim.MaxFiles && !h.hasWritten(rel) {
			notes.add(fmt.Sprintf("output: file cap of %d reached; the rest was not harvested", h.lim.MaxFiles))
			break
		}
		if hdr.Size > h.lim.MaxFileBytes {
			notes.add(fmt.Sprintf("skipped %q: %s is over the %s cap for one file", rel, kernel.FormatSize(hdr.Size), kernel.FormatSize(h.lim.MaxFileBytes)))
			continue
		}
		if h.bytes-h.written[rel]+hdr.Size > h.lim.MaxBytes {
			notes.add(fmt.Sprintf("output: size cap of %s reached at %q; the rest was not harvested", kernel.FormatSize(h.lim.MaxBytes), rel))
			break
		}
		// The header's size is a claim; the reader is capped at it and at the remaining budget.
		f, note, err := h.write(rel, io.LimitReader(tr, hdr.Size), hdr.Size, false)
		if note != "" {
			notes.add(note)
		}
		if err != nil {
			if errors.Is(err, errSkip) {
				continue
			}
			return files, notes.list(), fmt.Errorf("output harvest: %w", err)
		}
		files = append(files, f)
	}
	return files, notes.list(), nil
}

// writeFile writes one file whose bytes came over the kernel protocol (figures), e.g.
// name "figures/cell3-1.png"; same name rules and caps. A .png must pass
// kernel.CheckPNG, and the File carries the bytes, so the front end shows
// the figure without reading it back from disk.
func (h *harvester) writeFile(name string, data []byte) (kernel.File, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := validName(name, h.lim.MaxDepth); err != nil {
		return kernel.File{}, fmt.Errorf("figure %q: %w", name, err)
	}
	size := int64(len(data))
	if len(h.written) >= h.lim.MaxFiles && !h.hasWritten(name) {
		return kernel.File{}, fmt.Errorf("figure %q: file cap of %d reached", name, h.lim.MaxFiles)
	}
	if size > h.lim.MaxFileBytes || size > kernel.MaxPNGBytes || h.bytes-h.written[name]+size > h.lim.MaxBytes {
		return kernel.File{}, fmt.Errorf("figure %q: %s is over the output size cap", name, kernel.FormatSize(size))
	}
	f, note, err := h.write(name, bytes.NewReader(data), size, true)
	if err != nil {
		if note != "" {
			return kernel.File{}, errors.New(note)
		}
		return kernel.File{}, fmt.Errorf("figure %q: %w", name, err)
	}
	f.PNG = data
	return f, nil
}

func (h *harvester) hasWritten(rel string) bool { _, ok := h.written[rel]; return ok }

// write streams r (exactly size bytes) to rel. It returns a note and errSkip for a
// per-file refusal, or another error when the host folder itself failed.
// A figure refuses a .png that fails kernel.CheckPNG instead of writing it without
// dimensions, and figures and /output files never replace one another.
func (h *harvester) write(rel string, r io.Reader, size int64, figure bool) (kernel.File, string, error) {
	file := kernel.File{Name: rel, Path: filepath.Join(h.dir, filepath.FromSlash(rel)), Size: size}
	var note string
	if strings.EqualFold(path.Ext(rel), ".png") {
		head := make([]byte, min(size, pngSniffBytes))
		if _, err := io.ReadFull(r, head); err != nil {
			return file, fmt.Sprintf("skipped %q: short read: %v", rel, err), errSkip
		}
		w, ht, err := kernel.CheckPNG(head)
		switch {
		case err == nil:
			file.Width, file.Height = w, ht
		case figure:
			return file, fmt.Sprintf("figure %q: %v", rel, err), errSkip
		default:
			note = fmt.Sprintf("%q is not shown: %v", rel, err)
		}
		r = io.MultiReader(bytes.NewReader(head), r)
	}
	if skip := h.mkParents(rel); skip != "" {
		return file, skip, errSkip
	}
	_, replacing := h.written[rel]
	if replacing && h.figures[rel] != figure {
		return file, fmt.Sprintf("skipped %q: a file of that name already exists on the host and is never overwritten", rel), errSkip
	}
	if replacing && !h.unchanged(rel) {
		h.forget(rel)
		return file, fmt.Sprintf("skipped %q: it was changed on the host since it was harvested (an export or an edit) and is never overwritten", rel), errSkip
	}
	target := rel
	if replacing {
		// A newer version of our own file: write beside it, then rename over it.
		target = path.Join(path.Dir(rel), tmpPrefix+randomHex())
	}
	out, err := h.root.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return file, fmt.Sprintf("skipped %q: a file of that name already exists on the host and is never overwritten", rel), errSkip
		}
		return file, fmt.Sprintf("skipped %q: %v", rel, err), errSkip
	}
	n, err := io.Copy(out, io.LimitReader(r, size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = fmt.Errorf("got %d bytes, expected %d", n, size)
	}
	if err != nil {
		h.root.Remove(target)
		var perr *fs.PathError
		if errors.As(err, &perr) { // a host write error (disk full): the harvest cannot go on
			return file, "", fmt.Errorf("write %q: %w", rel, err)
		}
		return file, fmt.Sprintf("skipped %q: %v", rel, err), errSkip
	}
	if replacing {
		if err := h.root.Rename(target, rel); err != nil {
			h.root.Remove(target)
			return file, fmt.Sprintf("skipped %q: replace: %v", rel, err), errSkip
		}
	}
	h.bytes += size - h.written[rel]
	h.written[rel] = size
	h.version[rel]++
	if figure {
		h.figures[rel] = true
	}
	if fi, err := h.root.Lstat(rel); err == nil {
		h.left[rel] = fi
	}
	return file, note, nil
}

// unchanged tells whether the host file rel is still as the harvest left
// it (or gone): the same file, size and modification time.
func (h *harvester) unchanged(rel string) bool {
	now, err := h.root.Lstat(rel)
	was, known := h.left[rel]
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil || !known:
		return false
	}
	return now.Mode().IsRegular() && os.SameFile(was, now) && now.Size() == was.Size() && now.ModTime().Equal(was.ModTime())
}

// forget gives up a name: the file on the host is no longer the sandbox's.
func (h *harvester) forget(rel string) {
	h.bytes -= h.written[rel]
	delete(h.written, rel)
	delete(h.figures, rel)
	delete(h.version, rel)
	delete(h.left, rel)
}

// mkParents creates the folders above rel one by one, refusing any existing
// component that is not a real folder (a planted symlink is never followed).
func (h *harvester) mkParents(rel string) string {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := h.root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := h.root.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Sprintf("skipped %q: create folder: %v", rel, err)
			}
		case err != nil:
			return fmt.Sprintf("skipped %q: %v", rel, err)
		case !fi.IsDir():
			return fmt.Sprintf("skipped %q: %q on the host is not a folder", rel, dir)
		}
	}
	return ""
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// noteList keeps the first maxNotes notes and counts the rest, so a stream of
// 100,000 bad entries gives a short report.
type noteList struct {
	notes []string
	extra int
}

func (n *noteList) add(s string) {
	if len(n.notes) < maxNotes {
		n.notes = append(n.notes, s)
		return
	}
	n.extra++
}

func (n *noteList) list() []string {
	if n.extra > 0 {
		return append(n.notes, fmt.Sprintf("… and %d more skipped", n.extra))
	}
	return n.notes
}
