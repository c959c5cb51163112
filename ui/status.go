package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/render"
)

func lipglossWidth(s string) int { return lipgloss.Width(s) }

// status is what the bottom bar shows.
type status struct {
	label    string // always shown first (the demo's)
	model    string
	share    string // values or schema: what the model sees of the files
	sandbox  string // starting, ready, busy, restarting, failed
	progress string // the latest start-up or upload line
	usage    agent.Usage
	running  int       // cell number running, 0 for none
	since    time.Time // when it started
	cellWork string    // the running cell's progress line (tasks on a Dask cluster)
	hint     string    // a one-off message (e.g. "press Ctrl+C again to quit")
	sources  int       // connected databases

	files, changedFiles int // attached files, and resumed ones that changed: set for each frame from the chips

	// What the keys of the hint line would act on, set for each frame: a
	// key with nothing to act on yet is not offered (an empty chat shows
	// no "ctrl+t table").
	cells, table, figure bool
}

// Render draws the status line and the key help line.
func (s *status) Render(width int, now time.Time, th *theme, busy bool) string {
	// Every segment, separator and the padding carry the bar's colours:
	// an unstyled segment between styled ones would show the terminal's
	// background through the bar.
	seg := th.status.Render
	parts := []string{th.statusKey.Render(" " + sanitizeLine(s.model))}
	if s.label != "" {
		parts = append([]string{th.statusKey.Render(" " + sanitizeLine(s.label))}, seg(sanitizeLine(s.model)))
	}
	sb := "sandbox " + s.sandbox
	if s.sandbox == "lost" { // the container or the engine went away; the session rebuilds it
		sb += " (the next cell rebuilds it)"
	}
	if (s.sandbox == "starting" || s.sandbox == "busy") && s.progress != "" {
		sb += ": " + sanitizeLine(s.progress)
	}
	parts = append(parts, seg(sb))
	switch s.share {
	case "schema":
		parts = append(parts, seg("schema only"))
	case "values":
		parts = append(parts, seg("values shared"))
	}
	if s.files > 0 {
		f := "1 file"
		if s.files > 1 {
			f = fmt.Sprintf("%d files", s.files)
		}
		if s.changedFiles > 0 {
			f += fmt.Sprintf(" (%d changed)", s.changedFiles)
		}
		parts = append(parts, seg(f))
	}
	switch {
	case s.sources == 1:
		parts = append(parts, seg("1 database"))
	case s.sources > 1:
		parts = append(parts, seg(fmt.Sprintf("%d databases", s.sources)))
	}
	if t := s.usage.Total; t.Prompt+t.Completion > 0 {
		u := fmt.Sprintf("%s tok", render.GroupInt(t.Prompt+t.Completion))
		if t.CostUSD > 0 {
			u += fmt.Sprintf(" · $%.4f", t.CostUSD)
		}
		parts = append(parts, seg(u))
	}
	switch {
	case s.running > 0:
		cell := fmt.Sprintf("cell %d %s", s.running, fmtElapsed(now.Sub(s.since)))
		if s.cellWork != "" {
			cell += ": " + sanitizeLine(s.cellWork)
		}
		parts = append(parts, seg(cell))
	case busy:
		parts = append(parts, seg("answering…"))
	}
	line := strings.Join(parts, seg(" · "))
	if w := ansi.StringWidth(line); w > width {
		line = ansi.Truncate(line, max(width-1, 0), "") + seg("…")
	} else {
		line += seg(strings.Repeat(" ", width-w))
	}

	var help string
	switch {
	case s.hint != "":
		help = truncate(sanitizeLine(s.hint), width) // may hold file names from completion
	case busy:
		help = fitHints(width, hint{"esc/ctrl+c cancel", 0}, hint{"pgup/pgdn scroll", 2}, s.offer(s.cells, "ctrl+o expand", 1),
			s.offer(s.table, "ctrl+t table", 2), s.offer(s.figure, "ctrl+f figure", 3))
	default:
		help = fitHints(width, hint{"enter send", 0}, hint{"alt+enter newline", 4}, hint{"pgup/pgdn scroll", 3},
			s.offer(s.cells, "ctrl+o expand", 2), s.offer(s.table, "ctrl+t table", 2), s.offer(s.figure, "ctrl+f figure", 3),
			hint{"/help", 0}, hint{"ctrl+c ×2 quit", 1})
	}
	return line + "\n" + th.help.Render(help)
}

// offer is a key's hint when it has something to act on, else none.
func (s *status) offer(has bool, text string, rank int) hint {
	if !has {
		return hint{}
	}
	return hint{text, rank}
}
