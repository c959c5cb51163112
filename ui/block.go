package ui

import (
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/ground"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

type blockKind int

const (
	kindUser blockKind = iota
	kindAssistant
	kindCell
	kindNotice
	kindThinking
)

type noticeLevel int

const (
	levelInfo noticeLevel = iota
	levelWarn
	levelError
)

// block is one entry of the transcript. Its rendered lines are cached per
// width, background and version, so a finished message costs nothing to
// draw again; a streaming one re-renders only its tail (see assistantLines).
type block struct {
	kind      blockKind
	text      string // user text, assistant Markdown (untrusted), notice text
	level     noticeLevel
	streaming bool
	cell      *cellState
	numbers   []ground.Claim // an answer's numbers, checked by the session

	ver   int // bumped on every change that alters the rendering
	cache renderCache
	// A streaming answer re-renders only its tail (render.Stream).
	stream      *render.Stream
	streamKey   renderCache // width and style the stream was made for
	streamLines []string    // last rendering, kept between ticks
	streamDirty bool
}

type renderCache struct {
	width, ver int
	height     int
	dark, exp  bool
	valid      bool
	lines      []string
}

func (c *renderCache) get(rc renderCtx, ver int) ([]string, bool) {
	if c.valid && c.width == rc.width && c.height == rc.height && c.dark == rc.th.dark && c.ver == ver && c.exp == rc.expanded {
		return c.lines, true
	}
	return nil, false
}

func (c *renderCache) put(rc renderCtx, ver int, lines []string) {
	*c = renderCache{width: rc.width, height: rc.height, ver: ver, dark: rc.th.dark, exp: rc.expanded, valid: true, lines: lines}
}

// renderCtx is what rendering a block depends on besides the block itself.
type renderCtx struct {
	width    int
	height   int // of the screen
	th       *theme
	now      time.Time
	expanded bool             // cell outputs unfolded
	md       *render.Markdown // not safe for concurrent use: owned by the Model
	style    render.Style
	depth    render.ColorDepth
	images   render.Protocol
	// thousands groups the digits of numbers in tables.
	thousands bool
}

type cellRun int

const (
	cellRunning cellRun = iota
	cellDone
	cellFailed
	cellInterrupted
	cellSkipped
)

// cellState is one code cell: its code, live output and final result.
type cellState struct {
	num     int
	code    string
	started time.Time
	run     cellRun
	output  strings.Builder // live chunks, capped at maxLiveOutput (tail kept)
	result  *kernel.Result
	figures []*figure
}

// figure is a PNG the cell wrote, decoded off the Update loop.
type figure struct {
	file     kernel.File
	img      image.Image
	err      error
	kitty    *render.KittyImage // shown with kitty placeholders
	transmit string             // the transmission, sent once by Update
	key      int                // the figure's number in the chat
	inline   *inlineImage       // painted by the overlay (Sixel, iTerm2)
}

const maxLiveOutput = 64 << 10

func (c *cellState) appendOutput(s string) {
	c.output.WriteString(s)
	if c.output.Len() > maxLiveOutput {
		tail := c.output.String()[c.output.Len()-maxLiveOutput/2:]
		c.output.Reset()
		c.output.WriteString("…\n" + tail)
	}
}

func (b *block) lines(rc renderCtx) []string {
	if b.kind == kindCell && b.cell.run == cellRunning {
		// The header carries the elapsed time: never cached.
		body, ok := b.cache.get(rc, b.ver)
		if !ok {
			body = b.cellBody(rc)
			b.cache.put(rc, b.ver, body)
		}
		return append(append([]string{b.cellHeader(rc)}, body...), "")
	}
	if b.kind == kindAssistant && b.streaming {
		return b.streamingLines(rc)
	}
	if l, ok := b.cache.get(rc, b.ver); ok {
		return l
	}
	var l []string
	switch b.kind {
	case kindUser:
		l = b.userLines(rc)
	case kindAssistant:
		l = b.answerLines(rc)
	case kindCell:
		l = append([]string{b.cellHeader(rc)}, b.cellBody(rc)...)
	case kindNotice:
		l = b.noticeLines(rc)
	case kindThinking:
		l = b.thinkingLines(rc)
	}
	l = append(l, "")
	b.cache.put(rc, b.ver, l)
	return l
}

func (b *block) userLines(rc renderCtx) []string {
	out := []string{rc.th.user.Render("you")}
	for _, l := range wrapText(sanitize(b.text), max(rc.width-2, 1), outputBreaks) {
		out = append(out, truncate("  "+l, rc.width))
	}
	return out
}

func (b *block) noticeLines(rc renderCtx) []string {
	st, mark := rc.th.dim, "·"
	switch b.level {
	case levelWarn:
		st, mark = rc.th.warn, "!"
	case levelError:
		st, mark = rc.th.fail, "✗"
	}
	var out []string
	for i, l := range wrapText(sanitize(b.text), max(rc.width-2, 1), outputBreaks) {
		p := "  "
		if i == 0 {
			p = mark + " "
		}
		out = append(out, truncate(st.Render(p+l), rc.width))
	}
	return out
}

// streamingLines renders a growing answer through render.Stream, which
// caches the stable prefix and re-renders only the tail. Between ticks the
// last rendering is reused, so a burst of deltas costs one render.
func (b *block) streamingLines(rc renderCtx) []string {
	if b.stream == nil || !b.streamKey.valid || b.streamKey.width != rc.width || b.streamKey.dark != rc.th.dark {
		b.stream = rc.md.NewStream(rc.width, rc.style)
		b.streamKey = renderCache{width: rc.width, dark: rc.th.dark, valid: true}
		b.streamDirty = true
	}
	if b.streamDirty || b.streamLines == nil {
		out, err := b.stream.Render(b.text)
		if err != nil {
			out = sanitize(b.text)
		}
		b.streamLines = append([]string{rc.th.assistant.Render("quarry")}, splitLines(trimBlank(out), rc.width)...)
		b.streamLines = append(b.streamLines, "")
		b.streamDirty = false
	}
	return b.streamLines
}

func (b *block) cellHeader(rc renderCtx) string {
	c, th := b.cell, rc.th
	var s string
	switch c.run {
	case cellRunning:
		s = th.accent.Render(fmt.Sprintf("◐ cell %d · running %s", c.num, fmtElapsed(rc.now.Sub(c.started))))
	case cellDone:
		s = th.ok.Render(fmt.Sprintf("● cell %d · %s", c.num, render.CellSummary(c.result)))
	case cellInterrupted:
		s = th.warn.Render(fmt.Sprintf("⊘ cell %d · %s", c.num, render.CellSummary(c.result)))
	case cellSkipped:
		s = th.warn.Render(fmt.Sprintf("⊘ cell %d · skipped", c.num))
	case cellFailed:
		s = th.fail.Render(fmt.Sprintf("✗ cell %d · %s", c.num, render.CellSummary(c.result)))
	}
	return truncate(s, rc.width)
}

// A folded cell shows this many output lines (the last ones) and code lines.
const (
	foldLines = 6
	foldCode  = 14
)

func (b *block) cellBody(rc renderCtx) []string {
	c, th := b.cell, rc.th
	w := max(rc.width-2, 8)
	var out []string
	gut := th.code.Render("│ ")
	code := rc.codeBlock(c.code, w)
	if !rc.expanded && len(code) > foldCode {
		more := len(code) - foldCode + 1
		code = append(code[:foldCode-1], th.dim.Render("… "+plural(more, "more line")+" (ctrl+o expands)"))
	}
	for _, l := range code {
		out = append(out, gut+l)
	}
	text := c.output.String()
	if c.result != nil {
		text = c.result.Stdout
		if c.result.Stderr != "" {
			text = strings.TrimRight(text, "\n") + "\n" + c.result.Stderr
		}
		if e := c.result.Error; e != nil {
			detail := e.Message
			if e.Traceback != "" {
				detail = e.Traceback
			}
			text = strings.TrimRight(text, "\n") + "\n" + detail
		}
		if c.result.Value != nil && c.result.Value.Table == nil && c.result.Value.Repr != "" {
			text = strings.TrimRight(text, "\n") + "\n" + c.result.Value.Repr
		}
	}
	text = strings.Trim(sanitize(text), "\n")
	if text != "" {
		ol := wrapText(text, w, outputBreaks)
		if !rc.expanded && len(ol) > foldLines {
			hidden := len(ol) - foldLines
			ol = ol[len(ol)-foldLines:] // the end of output is what matters most
			for _, l := range wrapText("… "+foldNote(hidden, c.result)+" (ctrl+o expands)", w, "") {
				out = append(out, "  "+th.dim.Render(l))
			}
		}
		for _, l := range ol {
			out = append(out, truncate("  "+l, rc.width))
		}
	}
	if c.result != nil {
		if v := c.result.Value; v != nil && v.Table != nil {
			for _, l := range splitLines(rc.table(v.Table, w), w) {
				out = append(out, "  "+l)
			}
		}
		for _, f := range c.figures {
			out = append(out, figureLines(f, rc)...)
		}
		for _, f := range c.result.Files {
			out = append(out, truncate("  "+th.dim.Render("file ")+fileLink(f, rc.width-7), rc.width))
		}
		for _, n := range c.result.Notes {
			out = append(out, truncate("  "+th.dim.Render(sanitizeLine(n)), rc.width))
		}
		if c.result.StateLost {
			out = append(out, truncate("  "+th.warn.Render("the kernel restarted: variables defined so far are gone"), rc.width))
		}
		if c.result.Rewound {
			out = append(out, truncate("  "+th.warn.Render("the kernel went back to this question's start: its variables are gone, earlier ones kept"), rc.width))
		}
	}
	return out
}

func splitLines(s string, width int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	for i := range l {
		l[i] = truncate(l[i], width)
	}
	return l
}

// truncate keeps a line within width cells; wide characters count as two.
func truncate(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// fmtElapsed is a running time in whole seconds: 7s, 1m05s.
func fmtElapsed(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return render.FormatDuration(d)
}

// foldNote says what a folded output hides: its earlier lines, and the
// bytes the output cap dropped before they ever reached the chat (those
// no Ctrl+O brings back).
func foldNote(hidden int, r *kernel.Result) string {
	note := plural(hidden, "earlier line")
	if r != nil && r.Dropped > 0 {
		note += "; " + kernel.FormatSize(r.Dropped) + " dropped by the output cap"
	}
	return note
}

// anythingFolded tells whether Ctrl+O would show more: a cell's code or
// output, or a thought, cut short at the current width.
func (m *Model) anythingFolded() bool {
	folded := m.rc()
	folded.expanded = false
	open := folded
	open.expanded = true
	for _, b := range m.transcript.blocks {
		if (b.kind == kindCell || b.kind == kindThinking) && len(b.lines(folded)) != len(b.lines(open)) {
			return true
		}
	}
	return false
}
