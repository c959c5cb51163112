package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// chip is one file above the input: attached, or still uploading.
type chip struct {
	name    string          // under /data
	profile *kernel.Profile // nil while uploading
	changed bool            // a resumed input whose data is not what the earlier turns used
}

// chips are the uploads in flight and which resumed inputs changed. The
// attached files themselves are the session's list (Backend.Files), read
// each time they are drawn and never copied here: a refused attach cannot
// hide a file the session holds.
type chips struct {
	uploading []string        // host paths, in the order asked for
	changed   map[string]bool // by name under /data
}

func (c *chips) adding(path string) {
	for _, p := range c.uploading {
		if p == path {
			return
		}
	}
	c.uploading = append(c.uploading, path)
}

// done ends the upload of path, whichever way it went.
func (c *chips) done(path string) {
	for i, p := range c.uploading {
		if p == path {
			c.uploading = append(c.uploading[:i], c.uploading[i+1:]...)
			return
		}
	}
}

// setChanged marks a resumed input that changed since.
func (c *chips) setChanged(name string, yes bool) {
	if c.changed == nil {
		c.changed = map[string]bool{}
	}
	c.changed[name] = yes
}

// list is what the chips show: the session's files in attach order, then
// the uploads of names not attached yet (a second attach of a file shows
// it once).
func (c *chips) list(files []kernel.Profile) []chip {
	out := make([]chip, 0, len(files)+len(c.uploading))
	shown := map[string]bool{}
	for i := range files {
		p := &files[i]
		out = append(out, chip{name: p.Name, profile: p, changed: c.changed[p.Name]})
		shown[p.Name] = true
	}
	for _, path := range c.uploading {
		if name := filepath.Base(path); !shown[name] {
			out = append(out, chip{name: name})
			shown[name] = true
		}
	}
	return out
}

// chipCounts are how many files are attached or uploading, and how many of
// them are resumed inputs that changed since the earlier turns.
func chipCounts(items []chip) (n, changed int) {
	for _, it := range items {
		n++
		if it.changed {
			changed++
		}
	}
	return n, changed
}

func (c chip) label() string {
	name := sanitizeLine(c.name)
	if c.profile == nil {
		return name + " …"
	}
	p := c.profile
	s := name + " " + kernel.FormatSize(p.Size)
	switch {
	case p.Kind == "sqlite" || p.Kind == "duckdb":
		// A database, not its largest table: "11 tables · 984 KiB".
		s = name + " " + tablesText(p) + " · " + kernel.FormatSize(p.Size)
	case p.Rows > 0 || len(p.Columns) > 0:
		s += fmt.Sprintf(" · %s × %d", render.GroupInt(p.Rows), p.Width())
	}
	if p.Error != "" {
		s += " · not profiled"
	}
	if c.changed {
		s += " · changed"
	}
	return s
}

// renderChips lays the chips out on as many lines as they need.
func renderChips(items []chip, width int, th *theme) string {
	if len(items) == 0 {
		return ""
	}
	var lines []string
	cur, curW := "", 0
	for _, it := range items {
		st := th.chip
		if it.profile == nil {
			st = th.chipBusy
		}
		s := truncate(st.Render(it.label()), width)
		w := lipglossWidth(s)
		if curW > 0 && curW+1+w > width {
			lines = append(lines, cur)
			cur, curW = "", 0
		}
		if curW > 0 {
			cur += " "
			curW++
		}
		cur += s
		curW += w
	}
	lines = append(lines, cur)
	return strings.Join(lines, "\n")
}
