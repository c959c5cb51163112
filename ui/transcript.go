package ui

import "strings"

// transcript is the scrollable list of blocks. It draws only what is
// visible: following the bottom it walks back from the last block; scrolled
// up it walks forward from an anchor (block, line) so the view holds still
// while an answer streams in below.
type transcript struct {
	blocks []*block
	anchor *anchor // nil: follow the bottom
	// newBelow: output came while scrolled up, below what is shown; the
	// separator says so until the view is back at the bottom.
	newBelow bool
}

type anchor struct{ block, line int }

func (t *transcript) add(b *block) *block {
	t.blocks = append(t.blocks, b)
	t.grew()
	return b
}

// grew notes output added at the end: out of sight when scrolled up.
func (t *transcript) grew() {
	if t.anchor != nil {
		t.newBelow = true
	}
}

func (t *transcript) clear() {
	t.blocks = nil
	t.toBottom()
}

// Render draws height lines (padded) at the current scroll position.
func (t *transcript) Render(rc renderCtx, height int) string {
	if height <= 0 {
		return ""
	}
	var lines []string
	if t.anchor == nil {
		lines = t.bottomLines(rc, height)
	} else {
		lines = t.linesFrom(rc, *t.anchor, height)
		if len(lines) < height {
			// Scrolled past the end (content shrank): follow again.
			t.toBottom()
			lines = t.bottomLines(rc, height)
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

func (t *transcript) bottomLines(rc renderCtx, height int) []string {
	var chunks [][]string
	n := 0
	for i := len(t.blocks) - 1; i >= 0 && n < height; i-- {
		l := t.blocks[i].lines(rc)
		chunks = append(chunks, l)
		n += len(l)
	}
	out := make([]string, 0, n)
	for i := len(chunks) - 1; i >= 0; i-- {
		out = append(out, chunks[i]...)
	}
	if len(out) > height {
		out = out[len(out)-height:]
	}
	return out
}

func (t *transcript) linesFrom(rc renderCtx, a anchor, height int) []string {
	var out []string
	for i := a.block; i < len(t.blocks) && len(out) < height; i++ {
		l := t.blocks[i].lines(rc)
		if i == a.block {
			l = l[min(a.line, len(l)):]
		}
		out = append(out, l...)
	}
	if len(out) > height {
		out = out[:height]
	}
	return out
}

// topAnchor is the first visible line when following the bottom.
func (t *transcript) topAnchor(rc renderCtx, height int) anchor {
	n := 0
	for i := len(t.blocks) - 1; i >= 0; i-- {
		l := len(t.blocks[i].lines(rc))
		if n+l >= height {
			return anchor{block: i, line: n + l - height}
		}
		n += l
	}
	return anchor{}
}

// scroll moves the view by delta lines (negative: up, towards older blocks).
func (t *transcript) scroll(rc renderCtx, height, delta int) {
	if delta == 0 || len(t.blocks) == 0 {
		return
	}
	var a anchor
	if t.anchor != nil {
		a = *t.anchor
	} else {
		if delta > 0 {
			return
		}
		a = t.topAnchor(rc, height)
	}
	for delta < 0 {
		if a.line > 0 {
			step := min(a.line, -delta)
			a.line -= step
			delta += step
			continue
		}
		if a.block == 0 {
			break
		}
		a.block--
		a.line = len(t.blocks[a.block].lines(rc))
	}
	for delta > 0 && a.block < len(t.blocks) {
		l := len(t.blocks[a.block].lines(rc))
		if a.line+delta < l {
			a.line += delta
			delta = 0
			break
		}
		delta -= l - a.line
		a.block++
		a.line = 0
	}
	t.anchor = &a
	// Reaching the bottom resumes following.
	if len(t.linesFrom(rc, a, height+1)) <= height {
		t.toBottom()
	}
}

// show scrolls as little as it takes for line of block i to be on screen,
// a line of what comes before it too when it scrolls up to it.
func (t *transcript) show(rc renderCtx, height, i, line int) {
	if i >= len(t.blocks) || height <= 0 {
		return
	}
	abs := func(a anchor) int {
		n := a.line
		for k := 0; k < a.block; k++ {
			n += len(t.blocks[k].lines(rc))
		}
		return n
	}
	top := t.topAnchor(rc, height)
	if t.anchor != nil {
		top = *t.anchor
	}
	target, first := abs(anchor{i, line}), abs(top)
	switch {
	case target < first:
		t.scroll(rc, height, max(target-1, 0)-first)
	case target >= first+height:
		t.scroll(rc, height, target-(first+height-1)+1)
	}
}

func (t *transcript) toBottom() { t.anchor, t.newBelow = nil, false }

// marker is what the separator under the transcript says when the view
// is not at the bottom, or "".
func (t *transcript) marker() string {
	switch {
	case t.anchor == nil:
		return ""
	case t.newBelow:
		return "↓ new output below · ctrl+end"
	}
	return "↓ more below · ctrl+end"
}

func (t *transcript) toTop() { t.anchor = &anchor{} }

// hasCells tells whether a cell or a thought is shown: what Ctrl+O acts on.
func (t *transcript) hasCells() bool {
	for _, b := range t.blocks {
		if b.kind == kindCell || b.kind == kindThinking {
			return true
		}
	}
	return false
}
