package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/suggest"
)

// The index lets `quarry sessions` find every session from any folder: one
// small file per session, <index>/<id>.json, naming the session folder.
// One file each means concurrent sessions never write the same file, and
// removing a session removes one file.

// DefaultIndex is the index folder: $XDG_STATE_HOME/quarry/sessions, or
// ~/.local/state/quarry/sessions.
func DefaultIndex() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "quarry", "sessions")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "quarry", "sessions")
}

type indexEntry struct {
	ID      string    `json:"id"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
}

// idPattern is what newID makes; anything else in the index is not ours.
var idPattern = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$`)

// LooksLikeID tells whether s has the shape of a session id.
func LooksLikeID(s string) bool { return idPattern.MatchString(s) }

// register adds a session to the index (written whole, then renamed, so a
// reader never sees half of it).
func register(index, id, dir string, started time.Time) error {
	if index == "" {
		return errors.New("no index folder: set XDG_STATE_HOME or HOME")
	}
	if err := os.MkdirAll(index, 0o700); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	b, _ := json.Marshal(indexEntry{ID: id, Dir: dir, Started: started.UTC()})
	tmp, err := os.CreateTemp(index, ".tmp-*")
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(index, id+".json"))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("session index: %w", err)
	}
	return nil
}

func readIndex(index string) ([]indexEntry, error) {
	des, err := os.ReadDir(index)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session index %s: %w", index, err)
	}
	var out []indexEntry
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || !LooksLikeID(id) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(index, de.Name()))
		if err != nil {
			continue
		}
		var e indexEntry
		if json.Unmarshal(b, &e) != nil || e.ID != id || !filepath.IsAbs(e.Dir) {
			continue
		}
		out = append(out, e)
	}
	// Ids begin with the UTC start time: newest first is reverse order.
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Summary is one line of `quarry sessions`.
type Summary struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Title   string    `json:"title"`
	Files   []string  `json:"files"` // original host paths of the inputs
	Cells   int       `json:"cells"`
	Turns   int       `json:"turns"`
	Model   string    `json:"model"`
	Dir     string    `json:"dir"`
	Source  string    `json:"source,omitempty"` // a rerun's source
}

// Gone is an indexed session whose folder or record can no longer be read.
type Gone struct {
	ID, Dir string
	Err     error
}

// ListSessions summarises the indexed sessions, newest first; the ones
// that cannot be read are returned apart, with why.
func ListSessions(index string) ([]Summary, []Gone, error) {
	entries, err := readIndex(index)
	if err != nil {
		return nil, nil, err
	}
	out := []Summary{}
	var gone []Gone
	for _, e := range entries {
		rec, err := LoadRecord(e.Dir)
		if err == nil && rec.ID != e.ID {
			err = fmt.Errorf("%s holds session %s instead", e.Dir, rec.ID)
		}
		if err != nil {
			gone = append(gone, Gone{ID: e.ID, Dir: e.Dir, Err: err})
			continue
		}
		out = append(out, rec.Summary())
	}
	return out, gone, nil
}

// Summary is the record's line in `quarry sessions`.
func (rec *Record) Summary() Summary {
	s := Summary{ID: rec.ID, Started: rec.Started.UTC(), Title: rec.Title(), Files: []string{}, Model: rec.Model, Dir: rec.Dir, Source: rec.Source}
	for _, in := range rec.Inputs() {
		p := in.Path
		if p == "" {
			p = in.Name
		}
		s.Files = append(s.Files, p)
	}
	turns := rec.Turns()
	s.Turns = len(turns)
	for _, t := range turns {
		s.Cells += len(t.Cells)
	}
	return s
}

// ErrNoSession is the error, wrapped, for a ref that names no session.
var ErrNoSession = errors.New("no such session")

// Latest is the ref that names the newest session.
const Latest = "latest"

// FindSession loads the session ref names: Latest, an id, the unique start
// of one, or the path of a session folder.
func FindSession(index, ref string) (*Record, error) {
	if ref == "" {
		ref = Latest
	}
	if strings.ContainsRune(ref, os.PathSeparator) || ref == "." {
		if st, err := os.Stat(ref); err == nil && st.IsDir() {
			return LoadRecord(ref)
		}
	}
	entries, err := readIndex(index)
	if err != nil {
		return nil, err
	}
	if ref == Latest {
		if len(entries) == 0 {
			return nil, fmt.Errorf("%w yet: start one with quarry FILE... or quarry -p PROMPT FILE...", ErrNoSession)
		}
		return loadIndexed(entries[0])
	}
	var match []indexEntry
	for _, e := range entries {
		if e.ID == ref {
			return loadIndexed(e)
		}
		if strings.HasPrefix(e.ID, ref) {
			match = append(match, e)
		}
	}
	switch len(match) {
	case 0:
		if st, err := os.Stat(ref); err == nil && st.IsDir() {
			return LoadRecord(ref)
		}
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.ID
		}
		if p := suggest.Phrase(suggest.Nearest(ref, ids, 3), nil); p != "" {
			return nil, fmt.Errorf("%w: %q: %s (quarry sessions lists them)", ErrNoSession, ref, p)
		}
		return nil, fmt.Errorf("%w: %q: quarry sessions lists them", ErrNoSession, ref)
	case 1:
		return loadIndexed(match[0])
	}
	return nil, fmt.Errorf("%q names %d sessions (%s, %s…): give more of the id", ref, len(match), match[0].ID, match[1].ID)
}

func loadIndexed(e indexEntry) (*Record, error) {
	rec, err := LoadRecord(e.Dir)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w (quarry sessions rm %s forgets it)", e.ID, err, e.ID)
	}
	if rec.ID != e.ID {
		return nil, fmt.Errorf("session %s: its folder %s now holds session %s (quarry sessions rm %s forgets it)", e.ID, e.Dir, rec.ID, e.ID)
	}
	return rec, nil
}
