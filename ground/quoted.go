package ground

import (
	"sort"
	"strings"
	"unicode"
)

// An answer's line that quotes a line a cell printed ("- Total: Q1 639,000
// to Q2 665,500, +26,500 (+4.1%)" for the cell's "Total: Q1 639,000 to Q2
// 665,500, +26,500 (+4.1%)") holds that line's numbers in that order: each
// stands for its own, not for any value of the same size elsewhere.

// hole stands for a number in a skeleton.
const hole = '\x00'

// printedLine is a line of a cell's text that holds numbers.
type printedLine struct {
	src, line int // index into index.srcs, line from 1
	text      string
	nums      []srcNum
	skel      string
	strong    bool // says enough to be found inside a longer line
}

// quoteCand is a number of a printed line a claim quotes.
type quoteCand struct {
	pl *printedLine
	n  int
}

// skeleton is a line for comparing with another: its numbers (at spans)
// as holes, emphasis, code marks and list marks left out, case and
// spacing aside.
func skeleton(line string, spans [][2]int) string {
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(line[at:sp[0]])
		b.WriteByte(hole)
		at = sp[1]
	}
	b.WriteString(line[at:])
	s := strings.Map(func(r rune) rune {
		if r == '*' || r == '`' || r == '~' {
			return -1
		}
		return unicode.ToLower(r)
	}, b.String())
	s = strings.Join(strings.Fields(s), " ")
	for _, mark := range []string{"- ", "+ ", "• ", "> "} {
		s = strings.TrimPrefix(s, mark)
	}
	return s
}

// substantial says a printed line says enough in words to be found in
// another: two words, six letters; a line of fewer words ("0 | East |
// 15300.0") is quoted only by a line of nothing else.
func substantial(skel string) bool {
	words, letters := 0, 0
	inWord := false
	for _, r := range skel {
		if unicode.IsLetter(r) {
			letters++
			if !inWord {
				words++
			}
			inWord = true
		} else {
			inWord = false
		}
	}
	return words >= 2 && letters >= 6 && strings.ContainsRune(skel, hole)
}

// printedLines are the lines of the cells' texts that could be quoted.
func printedLines(srcs []Source) []printedLine {
	var out []printedLine
	for si, s := range srcs {
		if s.Kind == Table || s.Kind == Profile {
			continue
		}
		for k, ln := range splitLines(s.Text) {
			if k >= 2000 {
				break
			}
			line := s.Text[ln.start:ln.end]
			nums := scanSource(line)
			if len(nums) == 0 {
				continue
			}
			spans := make([][2]int, len(nums))
			for i, n := range nums {
				spans[i] = [2]int{n.start, n.end}
			}
			if skel := skeleton(line, spans); hasLetter(skel) {
				out = append(out, printedLine{src: si, line: k + 1, text: line, nums: nums, skel: skel, strong: substantial(skel)})
			}
		}
	}
	return out
}

// quotePins pins the numbers of the answer's lines outside tables that
// quote a printed line, by token.
func quotePins(md string, lay layout, toks []token, lines []printedLine) map[int][]quoteCand {
	if len(lines) == 0 {
		return nil
	}
	pins := map[int][]quoteCand{}
	k := 0
	for _, ln := range splitLines(md) {
		for k < len(toks) && toks[k].start < ln.start {
			k++
		}
		var idx []int
		var spans [][2]int
		inTable := false
		for j := k; j < len(toks) && toks[j].end <= ln.end; j++ {
			if _, ok := lay.cellAt(toks[j].start); ok {
				inTable = true
			}
			idx = append(idx, j)
			spans = append(spans, [2]int{toks[j].start - ln.start, toks[j].end - ln.start})
		}
		if len(idx) == 0 || inTable {
			continue
		}
		skel := skeleton(md[ln.start:ln.end], spans)
		type found struct {
			at, size int
			pl       *printedLine
		}
		var fs []found
		for i := range lines {
			pl := &lines[i]
			if !pl.strong {
				if pl.skel == skel {
					fs = append(fs, found{0, len(skel), pl})
				}
				continue
			}
			for off := 0; off < len(skel); {
				p := strings.Index(skel[off:], pl.skel)
				if p < 0 {
					break
				}
				p += off
				if boundary(skel, p, p+len(pl.skel)) {
					fs = append(fs, found{p, len(pl.skel), pl})
				}
				off = p + 1
			}
		}
		sort.SliceStable(fs, func(a, b int) bool { return fs[a].size > fs[b].size })
		var taken []int // the holes of the line quoted by the longest match over them
		for _, f := range fs {
			first := strings.Count(skel[:f.at], string(hole))
			n := len(f.pl.nums)
			for h := first; h < first+n && h < len(idx); h++ {
				if len(taken) > 0 && containsInt(taken, h) && !sameQuote(pins[idx[h]], f.size) {
					continue
				}
				pins[idx[h]] = append(pins[idx[h]], quoteCand{pl: f.pl, n: h - first})
				taken = append(taken, h)
			}
		}
	}
	return pins
}

// sameQuote says a hole already quoted is quoted by a match of the same
// length: two printed lines of the same words, either may be meant.
func sameQuote(cs []quoteCand, size int) bool {
	return len(cs) > 0 && len(cs[0].pl.skel) == size
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// boundary says skel[a:b] starts and ends on word boundaries.
func boundary(skel string, a, b int) bool {
	if r, _ := lastRune(skel, a); unicode.IsLetter(r) || unicode.IsDigit(r) {
		return false
	}
	r, _ := nextRune(skel, b)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
