package ground

import (
	"strings"
	"unicode"

	"github.com/quarry-cli/quarry/kernel"
)

// labelSet is what the sources use as names: row labels (an index, a text
// column), label strings with digits in them ("Berri 1", "FY2025"), and
// numbers that are names (cost centre 4400, an index of years).
type labelSet struct {
	names   []string           // row labels, as written
	byWord  map[string][]alias // first word, lower-cased → names and their other spellings
	seen    map[string]int32
	withNum map[string][]string // a digit run → label strings holding it
	numbers map[string]bool     // digit strings that are names
}

func newLabelSet() labelSet {
	return labelSet{byWord: map[string][]alias{}, seen: map[string]int32{}, withNum: map[string][]string{}, numbers: map[string]bool{}}
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// addName records one label of a source; a number is a row's name only
// in a column of names (account, cost_centre), never a position.
func (l *labelSet) addName(s string, row, named bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 80 {
		return
	}
	if allDigits(s) {
		if !named {
			return
		}
		l.numbers[s] = true
		if row && len(s) >= 3 {
			l.addRow(s)
		}
		return
	}
	if !hasLetter(s) {
		return
	}
	if row && len(s) >= 2 {
		l.addRow(s)
	}
	for _, run := range digitRuns(s) {
		if len(l.withNum[run]) < 64 {
			l.withNum[run] = append(l.withNum[run], s)
		}
	}
}

func (l *labelSet) addRow(s string) {
	key := strings.ToLower(s)
	if _, ok := l.seen[key]; !ok {
		l.seen[key] = int32(len(l.names))
		l.names = append(l.names, s)
	}
}

func digitRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		n := digitsAt(s, i)
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

func (l *labelSet) addTable(t *kernel.Table) {
	for _, c := range t.Columns {
		l.addName(c, false, true)
	}
	l.addName(t.IndexName, false, true)
	textCol := make([]bool, len(t.Columns))
	for j, c := range t.Columns {
		textCol[j] = labelColumn(c) || (j < len(t.Dtypes) && !numericDtype(t.Dtypes[j]))
	}
	rows := len(t.Head) + len(t.Tail)
	for i := 0; i < rows; i++ {
		label, cells := t.Exact(i)
		l.addName(label, true, t.IndexName != "")
		for j, c := range cells {
			if j < len(textCol) && textCol[j] {
				l.addName(c, true, true)
			}
		}
	}
}

// alias is a way a row label is written in an answer: as in the source,
// or as the other form of a month's name (a row "Feb" named February).
type alias struct {
	text string
	id   int32
}

// finish indexes the row labels by their first word.
func (l *labelSet) finish() {
	add := func(text string, id int) {
		if w := strings.ToLower(firstWord(text)); w != "" {
			l.byWord[w] = append(l.byWord[w], alias{text, int32(id)})
		}
	}
	for id, n := range l.names {
		add(n, id)
		if other, ok := monthForms[strings.ToLower(n)]; ok {
			add(other, id)
		}
	}
}

// monthForms pairs the short and long English names of months.
var monthForms = func() map[string]string {
	m := map[string]string{}
	for _, long := range []string{"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"} {
		m[long[:3]], m[long] = long, long[:3]
	}
	m["sept"] = "september"
	return m
}()

func firstWord(s string) string {
	j := 0
	for j < len(s) {
		r, w := nextRune(s, j)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += w
	}
	return s[:j]
}

// rowLabels are the known labels of one table row.
func (l *labelSet) rowLabels(label string, cells []string, numeric []bool) []int32 {
	var out []int32
	if id, ok := l.seen[strings.ToLower(strings.TrimSpace(label))]; ok {
		out = append(out, id)
	}
	for j, c := range cells {
		if j < len(numeric) && !numeric[j] {
			if id, ok := l.seen[strings.ToLower(strings.TrimSpace(c))]; ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// mention is a row label named in a text at pos.
type mention struct {
	pos, end int
	id       int32
}

// find is every row label named in text, on word boundaries, in order.
func (l *labelSet) find(text string) []mention {
	if len(l.byWord) == 0 {
		return nil
	}
	var out []mention
	for i := 0; i < len(text); {
		r, w := nextRune(text, i)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += w
			continue
		}
		if p, _ := lastRune(text, i); unicode.IsLetter(p) || unicode.IsDigit(p) {
			i += w
			continue
		}
		word := firstWord(text[i:])
		for _, a := range l.byWord[strings.ToLower(word)] {
			n := a.text
			if i+len(n) <= len(text) && strings.EqualFold(text[i:i+len(n)], n) && endsWord(text, i+len(n)) {
				out = append(out, mention{pos: i, end: i + len(n), id: a.id})
			}
		}
		i += len(word)
	}
	return out
}

// inText are the labels a line of output names.
func (l *labelSet) inText(line string) []int32 {
	ms := l.find(line)
	if len(ms) == 0 {
		return nil
	}
	out := make([]int32, len(ms))
	for i, m := range ms {
		out[i] = m.id
	}
	return out
}

// covers says the number at s[a:b] is part of a label written around it
// ("Berri 1", "FY 2025").
func (l *labelSet) covers(s string, a, b int) bool {
	raw := s[a:b]
	for _, name := range l.withNum[raw] {
		for off := strings.Index(name, raw); off >= 0; {
			start := a - off
			if start >= 0 && start+len(name) <= len(s) && strings.EqualFold(s[start:start+len(name)], name) {
				if p, _ := lastRune(s, start); !unicode.IsLetter(p) && !unicode.IsDigit(p) && endsWord(s, start+len(name)) {
					return true
				}
			}
			next := strings.Index(name[off+1:], raw)
			if next < 0 {
				break
			}
			off += 1 + next
		}
	}
	return false
}
