package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quarry-cli/quarry/filekind"
)

// folderError refuses a folder given as a file, with a pattern that names
// the data files inside it: the shell expands it on quarry's command line
// and the chat's /attach expands it too.
func folderError(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s: is a folder, not a file: name the files inside it", dir)
	}
	count := map[string]int{}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && filekind.ByExt(ext) != nil {
			count[ext]++
		}
	}
	if len(count) == 0 {
		return fmt.Errorf("%s: is a folder, not a file, and holds no data file quarry reads at its top: name the files to attach", dir)
	}
	exts := make([]string, 0, len(count))
	for e := range count {
		exts = append(exts, e)
	}
	sort.Slice(exts, func(i, j int) bool { // the most files first, then by name
		if count[exts[i]] != count[exts[j]] {
			return count[exts[i]] > count[exts[j]]
		}
		return exts[i] < exts[j]
	})
	return fmt.Errorf("%s: is a folder, not a file: name the files inside it, e.g. %s (%d file%s)",
		dir, filepath.Join(dir, "*"+exts[0]), count[exts[0]], plural(count[exts[0]]))
}
