package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
)

// RefusedError says which lines of a rerun's (or a notebook's) cells the
// kernel does not run: its IPython rules were asked before any cell ran,
// so nothing did.
type RefusedError struct {
	Source   string // the notebook's path or the session's id
	Refusals []kernel.Refusal
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	for i, r := range e.Refusals {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: code cell %d, line %d: %s: %s", e.Source, r.Cell, r.Line, shorten(r.Text, 80), r.Why)
	}
	return b.String()
}

// checkCells asks the kernel to check the cells of turns before any runs.
func (s *Session) checkCells(ctx context.Context, source string, turns []Turn) error {
	var cells []kernel.CheckCell
	for _, t := range turns {
		for _, c := range t.Cells {
			cells = append(cells, kernel.CheckCell{Cell: c.Num, Code: c.Code})
		}
	}
	s.mu.Lock()
	sb := s.sb
	s.mu.Unlock()
	refused, err := sb.Check(ctx, cells)
	if err != nil {
		return s.maskErr(err)
	}
	for i := range refused { // the notebook's own words, masked as output is (key-shaped paths stay)
		refused[i].Text, refused[i].Why = s.mask.Mask(refused[i].Text), s.mask.Mask(refused[i].Why)
	}
	if len(refused) > 0 {
		return &RefusedError{Source: source, Refusals: refused}
	}
	return nil
}
