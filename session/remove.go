package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// Removed is what RemoveSession did.
type Removed struct {
	Dir string // the session folder, "" when it was gone already
	// Kept are the entries (relative, slash-separated) left in Dir because
	// quarry did not write them there: the data files put beside the
	// exported notebook, Jupyter's checkpoints. Dir stays when there are any.
	Kept []string
}

// RemoveSession deletes a session: the files quarry wrote in its folder
// (the record, the figures and files its cells saved, the exports, the
// tables saved from the viewer), the folder itself once nothing else is
// in it, and its index entry. A folder that no longer holds that
// session's record is left alone; only the entry goes.
func RemoveSession(index, id string) (Removed, error) {
	entries, err := readIndex(index)
	if err != nil {
		return Removed{}, err
	}
	for _, e := range entries {
		if e.ID != id {
			continue
		}
		var out Removed
		if rec, err := LoadRecord(e.Dir); err == nil && rec.ID == id {
			if rec.InUse() {
				return Removed{}, fmt.Errorf("session %s is open in another quarry process: quit it there first", id)
			}
			kept, err := removeOwnFiles(rec)
			if err != nil {
				return Removed{}, fmt.Errorf("remove %s: %w", e.Dir, err)
			}
			out = Removed{Dir: e.Dir, Kept: kept}
		}
		if err := os.Remove(filepath.Join(index, id+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("session index: %w", err)
		}
		return out, nil
	}
	return Removed{}, fmt.Errorf("%w: %q: quarry sessions lists them", ErrNoSession, id)
}

// ownNames are the names (relative to the session folder) quarry writes
// there besides what the record lists: the record, the exports' and the
// report's default names, the report's build folder left by a kill, the
// viewer's tables and the harvest's unfinished temporary files.
var ownNames = regexp.MustCompile(`^(` + regexp.QuoteMeta(RecordName) + `|` + regexp.QuoteMeta(transcriptName) +
	`|analysis\.ipynb|report\.(md|html|xlsx|pdf)|\.(analysis\.ipynb|report\.(md|html|xlsx|pdf))\.tmp-[0-9]+|\.report-[0-9]+(/.+)?` +
	`|tables/cell[0-9]+(-[0-9]+)?\.csv|(.+/)?\.quarry-tmp-[0-9a-f]+)$`)

// removeOwnFiles deletes the files quarry wrote in rec's folder and the
// folders that leaves empty, through an os.Root, so no link in the folder
// leads a removal outside it. It returns what it left.
func removeOwnFiles(rec *Record) ([]string, error) {
	root, err := os.OpenRoot(rec.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	own := map[string]bool{}
	for _, e := range rec.Entries { // undone turns too: their files may still be there
		if e.Kind != EntryCell {
			continue
		}
		for _, f := range append(append([]kernel.File(nil), e.Cell.Result.Figures...), e.Cell.Result.Files...) {
			if f.Path != "" { // hostFiles gave a path: a name the harvest writes
				own[f.Name] = true
			}
		}
	}
	var files, dirs []string
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case name == ".":
		case d.IsDir():
			dirs = append(dirs, name)
		default:
			files = append(files, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var kept []string
	for _, name := range files {
		if !own[name] && !ownNames.MatchString(name) {
			kept = append(kept, name)
			continue
		}
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	// Deepest first, and only the empty ones go.
	sort.Slice(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	for _, d := range dirs {
		root.Remove(d)
	}
	if len(kept) > 0 {
		return kept, nil
	}
	if err := os.Remove(rec.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return nil, nil
}
