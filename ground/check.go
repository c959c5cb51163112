package ground

import (
	"math"
	"strings"
	"unicode"
)

// Input is one answer and what it may be grounded in.
type Input struct {
	Answer   string // the answer's Markdown
	Question string // the user's question: its numbers are no claims
	Sources  []Source
	// Thousands is the session's digit grouping (1,234.5): it settles
	// 1,234 as a thousand and more when the answer itself does not.
	Thousands bool
}

// Claim is one number of the answer.
type Claim struct {
	Text     string  `json:"text"`  // as written in the answer
	Value    float64 `json:"value"` // percent as a fraction, scaled, signed
	Grounded bool    `json:"grounded"`
	Cell     *int    `json:"cell"`   // the cell whose output holds it; nil when none, or a file's profile
	Source   *string `json:"source"` // the printed line or table cell it matched
	// Start and End are the claim's byte offsets in the answer.
	Start int `json:"start"`
	End   int `json:"end"`
}

// UnverifiedOpen and UnverifiedClose bracket an unverified number wherever
// quarry shows an answer (the chat, the exported reports), so a reader
// finds it the same way everywhere: no punctuation a sentence has, one
// column each in a terminal.
const (
	UnverifiedOpen  = "⟦"
	UnverifiedClose = "⟧"
)

// Unverified are the claims no source holds.
func Unverified(cs []Claim) []Claim {
	var out []Claim
	for _, c := range cs {
		if !c.Grounded {
			out = append(out, c)
		}
	}
	return out
}

// Check finds the answer's claims, in answer order, and grounds each in the
// sources.
func Check(in Input) []Claim {
	lay := readLayout(in.Answer)
	st, plainSpace := answerStyle(in.Answer, in.Thousands)
	toks := scanTokens(in.Answer, st, plainSpace, lay.skip)
	ix := buildIndex(in.Sources)
	asked := questionNumbers(in.Question, st)
	mentions := ix.labels.find(in.Answer)
	for k := range toks {
		toks[k] = contextOf(in.Answer, toks[k], lay)
	}
	signColumns(toks, lay)
	var pins map[int]pin
	if len(lay.heads) > 0 {
		pins = alignTables(in.Answer, lay, toks, grids(in.Sources))
	}
	quotes := quotePins(in.Answer, lay, toks, ix.lines)
	var out []Claim
	prevEnd := 0
	for k, t := range toks {
		p, pinned := pins[k]
		if pinned && p.label || notClaim(in.Answer, t, lay, &ix.labels, asked) {
			continue
		}
		c := Claim{Text: in.Answer[t.start:t.end], Value: t.value(t.read), Start: t.start, End: t.end}
		ids := mentionsFor(in.Answer, t, lay, mentions, prevEnd)
		prevEnd = t.end
		if pinned {
			if row, r, ok := p.ground(t); ok {
				src := p.g.describe(row, p.col)
				c.Grounded, c.Value, c.Source = true, t.value(r), &src
				if p.g.cell > 0 {
					cell := p.g.cell
					c.Cell = &cell
				}
				out = append(out, c)
				continue
			}
			if p.strict {
				out = append(out, c)
				continue
			}
		}
		if qs, ok := quotes[k]; ok {
			for _, q := range qs {
				if t.fits(q.pl.nums[q.n].v, colHint{scale: 1}) {
					src := lineSource(in.Sources[q.pl.src].Kind, q.pl.line, q.pl.text)
					c.Grounded, c.Source = true, &src
					if cell := in.Sources[q.pl.src].Cell; cell > 0 {
						c.Cell = &cell
					}
					break
				}
			}
			out = append(out, c)
			continue
		}
		header := "" // the column a number alone in its cell is in; "163,000 (−1.2%)" mixes two
		if cell, ok := lay.cellAt(t.start); ok && !strings.ContainsFunc(in.Answer[cell.start:t.start]+in.Answer[t.end:cell.end], unicode.IsDigit) {
			header = normName(cell.header)
		}
		for _, r := range t.readings() {
			if v, ok := ix.ground(t, r, ids, header); ok {
				cell, src := ix.describe(v)
				c.Grounded, c.Value, c.Source = true, t.value(r), &src
				if cell > 0 {
					c.Cell = &cell
				}
				break
			}
		}
		out = append(out, c)
	}
	return out
}

func (t token) readings() []reading {
	if t.alt != nil {
		return []reading{t.read, *t.alt}
	}
	return []reading{t.read}
}

// answerStyle tells from the answer's own unambiguous numbers whether
// "," or "." is its decimal mark (1.234,56 and 12,5 say ","; 1,234.56 and
// 12.5 say "."), and whether it groups digits with plain spaces (1 234,56).
func answerStyle(md string, thousands bool) (style, bool) {
	de, en, fr := 0, 0, false
	if thousands {
		en++
	}
	for i := 0; i < len(md); {
		if !isDigit(md[i]) {
			i++
			continue
		}
		b := scanBody(md, i, true)
		i = b.end
		n := len(b.seps)
		if n == 0 {
			continue
		}
		last, lastGroup := b.seps[n-1], b.groups[n]
		switch {
		case last != "," && last != ".":
		case n > 1 && b.seps[0] != last:
			if last == "," {
				de++
				fr = fr || strings.TrimSpace(b.seps[0]) == "" || b.seps[0] == "\u00a0" || b.seps[0] == "\u202f"
			} else {
				en++
			}
		case n == 1 && len(lastGroup) != 3:
			if last == "," {
				de++
			} else {
				en++
			}
		}
	}
	if de > en {
		return styleDE, fr
	}
	return styleEN, false
}

// contextOf adds what the words before a number say: a movement's sign,
// a hedge, an accounting negative.
func contextOf(s string, t token, lay layout) token {
	if t.paren {
		acct := false
		if !t.percent && t.sign == 0 {
			cell, inCell := lay.cellAt(t.start)
			whole := inCell && strings.TrimSpace(strings.Trim(strings.TrimSpace(s[cell.start:cell.end]), "*")) == s[t.start:t.end]
			acct = whole || t.currency || t.read.decimals == 2
		}
		if acct {
			t.sign, t.signed = -1, true
		} else {
			t.start, t.end, t.paren = t.start+1, t.end-1, false // "(+12.5%)" is a remark in brackets
		}
	}
	words := prevWords(s, t.start, 3)
	if t.sign == 0 && len(words) > 0 {
		k := 0
		if (words[0] == "by" || words[0] == "of") && len(words) > 1 {
			k = 1
		}
		switch {
		case negWords[words[k]]:
			t.sign = -1
		case posWords[words[k]]:
			t.sign = 1
		}
	}
	if len(words) > 0 && approxWords[words[0]] {
		t.approx = true
	}
	before := strings.TrimRight(s[:t.start], " ")
	if r, _ := lastRune(before, len(before)); r == '~' || r == '≈' {
		t.approx = true
	}
	return t
}

// signColumns gives the unsigned numbers of a Markdown table column a plus
// sign when others in the column show theirs: beside (3,000.00), 3,000.00
// is positive.
func signColumns(toks []token, lay layout) {
	type col struct{ table, col int }
	signed := map[col]bool{}
	for _, t := range toks {
		if c, ok := lay.cellAt(t.start); ok && t.signed && t.sign < 0 {
			signed[col{c.table, c.col}] = true
		}
	}
	for k, t := range toks {
		if c, ok := lay.cellAt(t.start); ok && t.sign == 0 && signed[col{c.table, c.col}] {
			toks[k].sign = 1
		}
	}
}

// notClaim says a number names or dates something, or comes from the
// question.
func notClaim(s string, t token, lay layout, labels *labelSet, asked []float64) bool {
	raw := s[t.num.start:t.num.end]
	words := prevWords(s, t.start, 2)
	next := nextWord(s, t.end)
	if t.plain {
		if len(words) > 0 && labelNouns[words[0]] {
			return true
		}
		if labels.numbers[raw] {
			return true
		}
		if cell, ok := lay.cellAt(t.start); ok && cell.header != "" && labelColumn(cell.header) {
			return true
		}
		v := t.read.v
		year := len(raw) == 4 && v >= 1900 && v <= 2100
		if year && !countNouns[next] {
			return true
		}
		if (v >= 1 && v <= 31 || year) && ((len(words) > 0 && months[words[0]]) || months[next]) {
			return true
		}
	}
	if labels.covers(s, t.num.start, t.num.end) {
		return true
	}
	v := math.Abs(t.value(t.read))
	for _, q := range asked {
		if math.Abs(q-v) <= 1e-9*math.Max(1, v) {
			return true
		}
	}
	return false
}

// questionNumbers are the values of the question's numbers.
func questionNumbers(q string, st style) []float64 {
	var out []float64
	for _, t := range scanTokens(q, st, false, readLayout(q).skip) {
		for _, r := range t.readings() {
			t.sign = 0
			out = append(out, math.Abs(t.value(r)))
		}
	}
	return out
}

// mentionsFor are the row labels that name what a claim is about: in a
// table row, the row's; in prose, one named right after it ("33.83 in
// April"), else those between the previous claim and this one, else those
// before it in its sentence; a label after a comparison word ("against
// March", "over February") names the baseline, not the claim's row.
func mentionsFor(s string, t token, lay layout, ms []mention, prevEnd int) []int32 {
	if len(ms) == 0 {
		return nil
	}
	lineStart := strings.LastIndexByte(s[:t.start], '\n') + 1
	lineEnd := len(s)
	if k := strings.IndexByte(s[t.end:], '\n'); k >= 0 {
		lineEnd = t.end + k
	}
	if _, ok := lay.cellAt(t.start); ok {
		return idsIn(s, ms, lineStart, lineEnd)
	}
	if id, ok := namedAfter(s, t.end, ms); ok {
		return []int32{id}
	}
	from, _ := sentence(s, t.start, t.end, lineStart, lineEnd)
	if ids := idsIn(s, ms, max(from, prevEnd), t.start); len(ids) > 0 {
		return ids
	}
	return idsIn(s, ms, from, t.start)
}

// namedAfter finds "in April", "for Sales" right after a claim.
func namedAfter(s string, end int, ms []mention) (int32, bool) {
	i := end
	for i < len(s) && s[i] == ' ' {
		i++
	}
	w := nextWord(s, i)
	if w != "in" && w != "for" && w != "at" && w != "during" {
		return 0, false
	}
	i += len(w)
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if strings.HasPrefix(s[i:], "the ") {
		i += 4
	}
	for _, m := range ms {
		if m.pos == i {
			return m.id, true
		}
	}
	return 0, false
}

var comparisonWords = set("against", "vs", "v", "versus", "than", "over", "on")

// sentence is the span of the sentence holding s[a:b], within its line.
func sentence(s string, a, b, lineStart, lineEnd int) (int, int) {
	from := lineStart
	for i := a - 1; i > lineStart; i-- {
		if c := s[i]; c == ';' || ((c == '.' || c == '!' || c == '?') && i+1 < len(s) && s[i+1] == ' ') {
			from = i + 1
			break
		}
	}
	to := lineEnd
	for i := b; i < lineEnd; i++ {
		if c := s[i]; c == ';' || ((c == '.' || c == '!' || c == '?') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n')) {
			to = i
			break
		}
	}
	return from, to
}

func idsIn(s string, ms []mention, from, to int) []int32 {
	var out []int32
	for _, m := range ms {
		if m.pos >= from && m.end <= to {
			if w := prevWords(s, m.pos, 1); len(w) == 1 && comparisonWords[w[0]] {
				continue
			}
			out = append(out, m.id)
		}
	}
	return out
}
