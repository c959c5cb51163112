package ui

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Sixel and iTerm2 figures inside Bubble Tea. Both draw at the cursor,
// outside the cell model Bubble Tea's renderer diffs, so they are painted
// by the writer the renderer writes to, around each frame:
//
//   - The view reserves a figure's cells as blank lines, each marked with an
//     APC string (figureMark) that View reads and removes: from them it knows
//     where every visible figure is on the screen, and which rows of it
//     are cut off at the top. That is a plan, numbered, kept here.
//   - View puts the plan's number into the frame as one more APC string
//     (planMark), which rides in a cell like any text: when the plan changes,
//     that cell changes, so the frame the renderer writes carries the number
//     of the plan it shows. The writer takes it out before the terminal sees
//     it; there is no guessing which view a frame belongs to.
//   - Before a frame, the writer blanks the cells of figures that moved or
//     went away (the renderer believes those cells blank already, so nothing
//     it knows of is lost); after the frame it paints the plan's figures at
//     their places, inside the frame's synchronized update when the terminal
//     has one, cursor saved and restored around each so the renderer's idea
//     of the cursor stays true.
//
// A figure painted over cells behaves like their text in every terminal that
// draws these protocols: text written there erases it, and scrolling moves
// it. So a frame that writes nothing into a figure's cells leaves it intact;
// every frame is still followed by a repaint of the figures it shows, since
// a frame may rewrite, scroll or clear any cell, and a repaint in place
// draws the same pixels again, without a blank moment between.

// overlay is the chat's output: the terminal, with figures painted around
// each frame. Write is called by Bubble Tea's renderer goroutine; publish by
// View on the event loop.
type overlay struct {
	out *os.File

	mu      sync.Mutex
	gen     uint64                 // the newest plan's number
	latest  []placement            // the newest plan
	plans   map[uint64][]placement // published, not yet shown
	last    []placement            // the plan of the frame on screen
	lastGen uint64
	cursor  bool // the terminal's cursor is visible
}

// placement is one figure on the screen: the cell of its top-left visible
// corner, how many of its rows are visible and how many are cut off above.
type placement struct {
	img        *inlineImage
	x, y, rows int
	skip       int
}

func newOverlay(out *os.File) *overlay {
	return &overlay{out: out, plans: map[uint64][]placement{}}
}

// publish records the plan of the view being built and returns the mark
// View puts into it. An unchanged plan keeps its number, and so its mark.
func (o *overlay) publish(plan []placement) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gen > 0 && samePlan(o.latest, plan) {
		return planMark(o.gen)
	}
	o.gen++
	o.latest = plan
	o.plans[o.gen] = plan
	// Frames show the newest view; plans older than the one on screen are
	// never shown.
	for g := range o.plans {
		if g < o.lastGen {
			delete(o.plans, g)
		}
	}
	return planMark(o.gen)
}

func samePlan(a, b []placement) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const planPrefix = "\x1b_quarry-plan:"

func planMark(gen uint64) string { return planPrefix + strconv.FormatUint(gen, 10) + "\x1b\\" }

// takeMarks removes the plan marks from a frame and returns the last one's
// number (0 when there is none).
func takeMarks(p []byte) ([]byte, uint64) {
	var gen uint64
	for {
		i := bytes.Index(p, []byte(planPrefix))
		if i < 0 {
			return p, gen
		}
		end := bytes.Index(p[i:], []byte("\x1b\\"))
		if end < 0 {
			return p, gen
		}
		if g, err := strconv.ParseUint(string(p[i+len(planPrefix):i+end]), 10, 64); err == nil {
			gen = g
		}
		p = append(p[:i:i], p[i+end+2:]...)
	}
}

const (
	syncStart = "\x1b[?2026h"
	syncEnd   = "\x1b[?2026l"
)

// Write passes a frame (or any other output) to the terminal with the
// figures of its plan erased and painted around it.
func (o *overlay) Write(p []byte) (int, error) {
	n := len(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	frame, gen := takeMarks(bytes.Clone(p))
	plan := o.last
	if gen != 0 {
		if np, ok := o.plans[gen]; ok {
			plan = np
			o.lastGen = gen
			delete(o.plans, gen)
		}
	}
	if i, j := bytes.LastIndex(frame, []byte("\x1b[?25h")), bytes.LastIndex(frame, []byte("\x1b[?25l")); i >= 0 || j >= 0 {
		o.cursor = i > j
	}
	if len(frame) == 0 || (len(plan) == 0 && len(o.last) == 0) {
		o.last = plan
		_, err := o.out.Write(frame)
		return n, err
	}
	pre := eraseMoved(o.last, plan)
	post := paint(plan, o.cursor)
	o.last = plan

	var b bytes.Buffer
	b.Grow(len(frame) + len(pre) + len(post))
	body := frame
	if bytes.HasPrefix(body, []byte(syncStart)) {
		b.WriteString(syncStart)
		body = body[len(syncStart):]
	}
	b.WriteString(pre)
	if bytes.HasSuffix(body, []byte(syncEnd)) {
		b.Write(body[:len(body)-len(syncEnd)])
		b.WriteString(post)
		b.WriteString(syncEnd)
	} else {
		b.Write(body)
		b.WriteString(post)
	}
	_, err := o.out.Write(b.Bytes())
	return n, err
}

// eraseMoved blanks the cells of the figures in old that are not in new at
// the same place, except where a figure of new will be painted anyway. It
// prints spaces: xterm's erase commands (ECH, EL) only hide a picture, which
// comes back the next time xterm redraws its window.
func eraseMoved(old, new []placement) string {
	var b strings.Builder
	for _, o := range old {
		kept := false
		for _, n := range new {
			if n == o {
				kept = true
				break
			}
		}
		if kept {
			continue
		}
		for y := o.y; y < o.y+o.rows; y++ {
			from, to := o.x, o.x+o.img.cols
			for _, n := range new {
				if y >= n.y && y < n.y+n.rows && n.x <= from && n.x+n.img.cols >= to {
					from = to // covered by a figure painted after the frame
				}
			}
			if from < to {
				b.WriteString("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(from+1) + "H" + strings.Repeat(" ", to-from))
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\x1b7\x1b[0m" + b.String() + "\x1b8"
}

// paint draws the plan's figures, the cursor saved (and hidden, when it is
// shown) around them.
func paint(plan []placement, cursor bool) string {
	if len(plan) == 0 {
		return ""
	}
	var b strings.Builder
	if cursor {
		b.WriteString("\x1b[?25l")
	}
	b.WriteString("\x1b7")
	for _, p := range plan {
		b.WriteString("\x1b[" + strconv.Itoa(p.y+1) + ";" + strconv.Itoa(p.x+1) + "H")
		b.WriteString(p.img.escape(p.skip, p.rows))
	}
	b.WriteString("\x1b8")
	if cursor {
		b.WriteString("\x1b[?25h")
	}
	return b.String()
}

// The rest makes overlay a terminal file, so Bubble Tea treats it as the tty
// it wraps (raw mode, window size).

func (o *overlay) Read(p []byte) (int, error) { return o.out.Read(p) }
func (o *overlay) Close() error               { return nil }
func (o *overlay) Fd() uintptr                { return o.out.Fd() }
