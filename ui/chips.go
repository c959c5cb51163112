package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// chip is one attached file above the input.
type chip struct {
	path    string
	profile *kernel.Profile // nil while uploading
	changed bool            // a resumed input whose data is not what the earlier turns used
}

// chips are the attachments, in the order they were asked for.
type chips struct {
	items []chip
}

func (c *chips) adding(path string) {
	for i := range c.items {
		if c.items[i].path == path {
			c.items[i] = chip{path: path}
			return
		}
	}
	c.items = append(c.items, chip{path: path})
}

// drop removes the chip of path if it is still uploading.
func (c *chips) drop(path string) {
	for i := range c.items {
		if c.items[i].path == path && c.items[i].profile == nil {
			c.items = append(c.items[:i], c.items[i+1:]...)
			return
		}
	}
}

// counts are how many files are attached or uploading, and how many of
// them are resumed inputs that changed since the earlier turns.
func (c *chips) counts() (n, changed int) {
	for _, it := range c.items {
		n++
		if it.changed {
			changed++
		}
	}
	return n, changed
}

// changed marks the chip of a resumed input that changed since.
func (c *chips) changed(path string, yes bool) {
	for i := range c.items {
		if c.items[i].path == path {
			c.items[i].changed = yes
		}
	}
}

// done records an upload's outcome; a failed one leaves the chips (the
// error is shown in the transcript instead).
func (c *chips) done(path string, p kernel.Profile, err error) {
	for i := range c.items {
		if c.items[i].path == path {
			if err != nil {
				c.items = append(c.items[:i], c.items[i+1:]...)
			} else {
				c.items[i].profile = &p
			}
			return
		}
	}
}

func (c chip) label() string {
	name := sanitizeLine(filepath.Base(c.path))
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

// Render lays the chips out on as many lines as they need.
func (c *chips) Render(width int, th *theme) string {
	if len(c.items) == 0 {
		return ""
	}
	var lines []string
	cur, curW := "", 0
	for _, it := range c.items {
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
