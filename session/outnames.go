package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FreeNames are names for files to write together into dir that replace
// none there: the names themselves when all are free, else each with the
// same smallest suffix that frees them all (report-2.xlsx, report-2.pdf),
// so files written together keep one name.
func FreeNames(dir string, names []string) []string {
	for n := 1; ; n++ {
		out := make([]string, len(names))
		free := true
		for i, name := range names {
			out[i] = name
			if n > 1 {
				ext := filepath.Ext(name)
				out[i] = strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
			}
			if _, err := os.Lstat(filepath.Join(dir, out[i])); !errors.Is(err, fs.ErrNotExist) {
				free = false
			}
		}
		if free {
			return out
		}
	}
}

// CheckNewOutput tells whether a file the user named can be written
// without replacing anything or making folders they did not ask for: its
// folder must exist and it must not.
func CheckNewOutput(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the folder %s does not exist: check the path, or make the folder first (mkdir -p %s)", path, dir, dir)
	case err != nil:
		return fmt.Errorf("%s: %v", path, err)
	case !st.IsDir():
		return fmt.Errorf("%s: %s is a file, not a folder: check the path", path, dir)
	}
	st, err = os.Lstat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s: is a folder: name the file to write inside it", path)
	case err == nil:
		return fmt.Errorf("%s: exists, and would be replaced: name another file, or remove this one first", path)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
