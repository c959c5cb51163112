package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/kernel"
)

// CheckFile tells whether path can be attached, without any container or
// request: it must exist and be a readable, non-empty regular file whose
// content is a kind quarry reads, whatever its name says (package
// filekind). Each error names the file and says what to do.
func CheckFile(path string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file: check the name and the folder you run quarry from", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: cannot be reached (permission denied): check the folder's permissions", path)
	case err != nil:
		return fmt.Errorf("%s: %v", path, err)
	case info.IsDir():
		return folderError(path)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s: is not a regular file (a pipe or device): save the data to a file first, or pipe it on standard input", path)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s: cannot be read (permission denied): check its permissions, e.g. chmod u+r %s", path, path)
		}
		return fmt.Errorf("%s: cannot be read: %v", path, err)
	}
	f.Close()
	return filekind.Identify(path).Err()
}

// CheckFiles runs CheckFile on each path and rejects two files with the
// same base name, which would both land at /data/<name>: a front end calls
// it before anything starts.
func CheckFiles(paths []string) error {
	seen := map[string]string{}
	for _, p := range paths {
		if err := CheckFile(p); err != nil {
			return err
		}
		base := filepath.Base(p)
		if prev, ok := seen[base]; ok {
			return fmt.Errorf("%s and %s have the same name, %s: rename or copy one of them", prev, p, base)
		}
		seen[base] = p
	}
	return nil
}

// CheckOutputDir tells whether dir can be a session's output folder before
// anything starts: it must not exist yet, or be an empty folder, so that
// files from the sandbox never replace files already there.
func CheckOutputDir(dir string) error {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if why := whyNotCreatable(dir); why != "" {
			return fmt.Errorf("output folder %s cannot be made: %s: choose another folder with --output-dir", dir, why)
		}
		return nil
	case err != nil:
		return fmt.Errorf("output folder %s: %v", dir, err)
	case !info.IsDir():
		return fmt.Errorf("output folder %s exists and is not a folder: choose a new folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output folder %s: %v", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("output folder %s is not empty: choose a new or empty folder, so no file of yours is replaced", dir)
	}
	return nil
}

// CheckOutputParent tells whether parent (the output_dir setting, under
// which each session gets its own folder) is, or can become, a folder
// quarry writes in; setting names where it was set, for the fix.
func CheckOutputParent(parent, setting string) error {
	info, err := os.Stat(parent)
	switch {
	case err != nil:
		if why := whyNotCreatable(parent); why != "" {
			return fmt.Errorf("output folder %s cannot be made: %s: change output_dir (set by %s) or use --output-dir", parent, why, setting)
		}
		return nil
	case !info.IsDir():
		return fmt.Errorf("output folder %s is a file, not a folder: change output_dir (set by %s)", parent, setting)
	}
	f, err := os.CreateTemp(parent, ".quarry-check-*")
	if err != nil {
		return fmt.Errorf("output folder %s is not writable: change output_dir (set by %s) or use --output-dir", parent, setting)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// whyNotCreatable says why the missing folder dir cannot be made, or "":
// its nearest existing ancestor must be a folder quarry can write in.
// Trying (a temporary file, removed at once) is the portable way to know.
func whyNotCreatable(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err.Error()
	}
	parent := filepath.Dir(abs)
	for {
		info, err := os.Stat(parent)
		if err == nil {
			if !info.IsDir() {
				return parent + " is a file, not a folder"
			}
			break
		}
		if (!errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)) || filepath.Dir(parent) == parent {
			return err.Error()
		}
		parent = filepath.Dir(parent)
	}
	f, err := os.CreateTemp(parent, ".quarry-check-*")
	if err != nil {
		return parent + " is not writable"
	}
	f.Close()
	os.Remove(f.Name())
	return ""
}

// Attach checks a host file, uploads it into the running sandbox (read-only
// at /data/<base name>) and profiles it; the agent is told about it for the
// following turns, and the record keeps where it came from and its sha256.
// It waits for Start.
func (s *Session) Attach(ctx context.Context, path string) (kernel.Profile, error) {
	if err := CheckFile(path); err != nil {
		return kernel.Profile{}, err
	}
	if err := s.acquire(ctx); err != nil {
		return kernel.Profile{}, err
	}
	in, err := s.attach(ctx, path, filepath.Base(path))
	s.release(StateReady, nil)
	if err != nil {
		return kernel.Profile{}, err
	}
	return *in.Profile, nil
}

// attach uploads path as /data/<name> and returns what the record keeps of
// it; the caller holds the operation slot, so two attaches of one name
// cannot both pass the check.
func (s *Session) attach(ctx context.Context, path, name string) (Input, error) {
	s.mu.Lock()
	attached, sb := append([]attachedFile(nil), s.attached...), s.sb
	s.mu.Unlock()
	if err := checkNewFile(attached, path, name, s.id, fileSHA256); err != nil {
		return Input{}, err
	}
	s.setState(StateBusy, nil)
	if !sb.Alive() { // lost since the last operation: rebuilt first (rebuild.go)
		var err error
		if sb, _, err = s.rebuild(ctx, "", false); err != nil {
			return Input{}, fmt.Errorf("attach %s: %w", path, err)
		}
	}
	f, err := s.openChecked(path)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	// The hash is read beside the upload, from the same handle at its own
	// offsets: the file is read twice, the second time mostly from the
	// page cache.
	sum := make(chan string, 1)
	go func() { sum <- handleSHA256(f) }()
	p, err := sb.AddOpenFileAs(ctx, f, name, newUploadLines(s.progress).report)
	sha := <-sum
	if err != nil {
		return Input{}, fmt.Errorf("attach %s: %w", path, err)
	}
	abs, _ := filepath.Abs(path)
	s.mu.Lock()
	s.files = append(s.files, p)
	s.attached = append(s.attached, attachedFile{name: name, path: abs, sha: sha})
	files := append([]kernel.Profile(nil), s.files...)
	rec := s.rec
	s.mu.Unlock()
	if s.ag != nil {
		s.ag.SetFiles(files)
	}
	in := Input{Name: name, Path: abs, Size: p.Size, SHA256: sha, Profile: &p}
	rec.input(in)
	if p.KindNote != "" { // read by its content: the user should know too
		s.emit(agent.Event{Kind: agent.EventWarning, Text: name + ": " + p.KindNote})
	}
	return in, nil
}

// fileSHA256 is the hex SHA-256 of a file, "" when it cannot be read.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	return handleSHA256(f)
}

// handleSHA256 is the hex SHA-256 of the file f holds, read at its
// offsets (f's own position untouched), "" when it cannot be read.
func handleSHA256(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, st.Size())); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Files are the profiles of the attached files, in attach order.
func (s *Session) Files() []kernel.Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]kernel.Profile(nil), s.files...)
}

// openChecked opens the host file to read into the sandbox, once: the
// file is then read only through the handle, which Options.ReadCheck
// checks (the handle's own fstat and the file the system says it holds),
// so no swap between the check and the read can change what is read.
// With a ReadCheck the path is the file's own, its links resolved, and
// the open follows no link at its end.
func (s *Session) openChecked(path string) (*os.File, error) {
	if s.opts.ReadCheck == nil {
		return os.Open(path)
	}
	f, err := openNoFollow(path)
	if err != nil {
		if cerr := s.opts.ReadCheck(path, nil); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("attach %s: %w", path, err)
	}
	if err := s.opts.ReadCheck(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
