package sandbox

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/kernel"
)

// AddFile makes a host file readable (read-only) at /data/<base name> and
// profiles it inside the sandbox. The host file is never modified.
func (s *Session) AddFile(ctx context.Context, hostPath string) (kernel.Profile, error) {
	return s.AddFileProgress(ctx, hostPath, nil)
}

// AddFileProgress is AddFile reporting its progress to onProgress (nil
// for none): see Upload for when. onProgress runs on AddFile's goroutines
// and must return quickly; the copy waits for it.
func (s *Session) AddFileProgress(ctx context.Context, hostPath string, onProgress func(Upload)) (kernel.Profile, error) {
	return s.AddFileAs(ctx, hostPath, filepath.Base(hostPath), onProgress)
}

// AddFileAs is AddFileProgress with the file at /data/<name>, whatever its
// host name: a rerun puts next quarter's file where the code reads last
// quarter's.
func (s *Session) AddFileAs(ctx context.Context, hostPath, name string, onProgress func(Upload)) (kernel.Profile, error) {
	f, err := os.Open(hostPath)
	if err != nil {
		return kernel.Profile{}, fmt.Errorf("add file: %w", err)
	}
	defer f.Close()
	return s.AddOpenFileAs(ctx, f, name, onProgress)
}

// AddOpenFileAs is AddFileAs for a file the caller opened (and checked):
// everything is read through f, whatever its path names meanwhile. f
// stays open; its offset moves.
func (s *Session) AddOpenFileAs(ctx context.Context, f *os.File, name string, onProgress func(Upload)) (kernel.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return kernel.Profile{}, ErrClosed
	}
	if onProgress == nil {
		onProgress = func(Upload) {}
	}
	t0 := time.Now()
	// What the file is goes by its content and the name it gets in /data.
	id := filekind.IdentifyOpenAs(f, name)
	size, err := s.copyFrom(ctx, f, name, t0, onProgress)
	if err != nil {
		return kernel.Profile{}, err
	}
	onProgress(Upload{Name: name, Phase: UploadProfiling, Done: size, Size: size, Elapsed: time.Since(t0)})
	var p kernel.Profile
	if err := id.Err(); err != nil {
		// Attached all the same (a notebook's code may open it as it
		// likes), but not a table to profile.
		p = kernel.Profile{Name: name, Path: dataDir + "/" + name, HeaderRow: -1, Error: err.Error()}
	} else if p, err = s.profile(ctx, dataDir+"/"+name, id.Request()); err == nil {
		p.KindNote = id.Note()
	}
	p.Size = size // the host copied it: true also when profiling failed
	return p, err
}

// copyIn streams one host file into /data as a one-entry tar built on the
// fly: memory use does not depend on the file's size. The entry is
// root-owned and 0444 in a root-owned folder, so the code can read it but
// not change, replace or delete it. /data is a volume on the engine's disk,
// so files larger than the sandbox's memory fit.
func (s *Session) copyIn(ctx context.Context, hostPath, name string, t0 time.Time, onProgress func(Upload)) (int64, error) {
	f, err := os.Open(hostPath)
	if err != nil {
		return 0, fmt.Errorf("add file: %w", err)
	}
	defer f.Close()
	return s.copyFrom(ctx, f, name, t0, onProgress)
}

// copyFrom is copyIn from an open file, read at its offsets (not from
// its current position), so another reader of f may run beside it.
func (s *Session) copyFrom(ctx context.Context, f *os.File, name string, t0 time.Time, onProgress func(Upload)) (int64, error) {
	hostPath := f.Name()
	if err := checkDataName(name); err != nil {
		return 0, fmt.Errorf("add file %q: %w", hostPath, err)
	}
	st, err := f.Stat() // the handle's own: the file read below
	if err != nil {
		return 0, fmt.Errorf("add file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("add file %s: not a regular file: attach a CSV, Excel or other data file", hostPath)
	}
	src := &progressReader{r: io.NewSectionReader(f, 0, st.Size()), up: Upload{Name: name, Phase: UploadCopying, Size: st.Size()}, t0: t0, last: t0, report: onProgress}
	onProgress(src.up)
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: name, Size: st.Size(), Mode: 0o444,
			Uid: 0, Gid: 0, ModTime: st.ModTime().Truncate(time.Second), Format: tar.FormatPAX,
		}
		err := tw.WriteHeader(hdr)
		if err == nil {
			var n int64
			n, err = io.CopyN(tw, src, st.Size())
			if err == io.EOF || (err == nil && n < st.Size()) {
				err = fmt.Errorf("%s shrank while being copied", hostPath)
			}
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err = s.e.Client().CopyToContainer(ctx, s.cid, client.CopyToContainerOptions{
		DestinationPath: dataDir, Content: pr, AllowOverwriteDirWithFile: false,
	})
	pr.CloseWithError(io.ErrClosedPipe) // stop the writer if the engine gave up early
	if err != nil {
		return 0, s.engineError(fmt.Errorf("add file %s: copy into the sandbox: %w", name, err))
	}
	onProgress(Upload{Name: name, Phase: UploadCopying, Done: st.Size(), Size: st.Size(), Elapsed: time.Since(t0)})
	return st.Size(), nil
}

// checkDataName refuses names that cannot be a single file in /data or
// would carry control characters into prompts and terminals.
func checkDataName(name string) error {
	if name == "." || name == ".." || name == "" || strings.ContainsRune(name, '/') {
		return fmt.Errorf("not a file name")
	}
	if len(name) > 255 {
		return fmt.Errorf("file name longer than 255 bytes: rename the file")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) {
		return fmt.Errorf("file name contains control characters or invalid UTF-8: rename the file")
	}
	return nil
}
