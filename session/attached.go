package session

import (
	"fmt"
	"path/filepath"
)

// attachedFile is where an attached file was read from, so that the next
// attach can tell the same file again from another file of the same name.
type attachedFile struct {
	name, path, sha string // name under /data, absolute host path, sha256 then
}

// AlreadyAttachedError is an attach of a file the session already holds,
// by the same host path; Changed says its content is not what was read.
type AlreadyAttachedError struct {
	Path, Name string
	Changed    bool
	ID         string // the session, for the --resume that reads it again
}

func (e *AlreadyAttachedError) Error() string {
	if e.Changed {
		return fmt.Sprintf("%s is already attached as %s, and has changed since: the session goes on with the copy it read then; "+
			"to read it as it is now, end this session and resume it (quarry --resume %s asks about changed files)", e.Path, e.Name, e.ID)
	}
	return fmt.Sprintf("%s is already attached as %s: it is there to use, as it was", e.Path, e.Name)
}

// checkNewFile tells whether path can join the files attached as name:
// the same host file is already attached (and has it changed?), another
// one holds the name, or it is free. sha is read only when the path
// matches, since only then is the content compared.
func checkNewFile(attached []attachedFile, path, name, id string, sha func(string) string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	for _, a := range attached {
		if a.name != name {
			continue
		}
		if a.path == abs {
			return &AlreadyAttachedError{Path: path, Name: name, ID: id, Changed: a.sha != "" && sha(path) != a.sha}
		}
		return fmt.Errorf("%s: another file named %s is already attached (from %s): copy or rename this one to a name of its own, then attach it", path, name, a.path)
	}
	return nil
}

// CheckNewFile tells, without any request, whether path can be attached
// beside the session's files: CheckFile, then the name under /data it
// would take. Attach checks again, under the operation slot.
func (s *Session) CheckNewFile(path string) error {
	if err := CheckFile(path); err != nil {
		return err
	}
	s.mu.Lock()
	attached := append([]attachedFile(nil), s.attached...)
	s.mu.Unlock()
	return checkNewFile(attached, path, filepath.Base(path), s.id, fileSHA256)
}
