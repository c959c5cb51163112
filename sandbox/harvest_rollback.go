package sandbox

import (
	"errors"
	"io/fs"
	"path"
	"sort"
)

// versions is what a checkpoint keeps of the harvest: every name written so
// far and how often.
func (h *harvester) versions() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := make(map[string]int, len(h.version))
	for name, n := range h.version {
		v[name] = n
	}
	return v
}

// rollback takes the host folder back to a checkpoint's versions: files
// first written since are removed (with folders they leave empty); files
// rewritten since are named in changed and keep their new contents. Only
// names this harvester wrote, and still as it left them, are touched.
func (h *harvester) rollback(then map[string]int) (removed, changed []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var made []string
	for name, n := range h.version {
		switch was, ok := then[name]; {
		case !ok:
			made = append(made, name)
		case n != was:
			changed = append(changed, name)
		}
	}
	sort.Strings(made)
	sort.Strings(changed)
	for _, name := range made {
		if !h.unchanged(name) {
			h.forget(name) // an export or an edit replaced it: the host's now, kept
			continue
		}
		if err := h.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // still there (and still ours): it stays listed
		}
		h.forget(name)
		removed = append(removed, name)
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if h.root.Remove(dir) != nil { // only an empty folder goes
				break
			}
		}
	}
	return removed, changed
}
