// Package suggest finds the names nearest a mistyped one, for the "did you
// mean" of commands, flags, slash commands and session ids. It is a leaf:
// it imports nothing of quarry.
package suggest

import (
	"sort"
	"strings"
)

// Nearest returns the candidates within maxDist edits of typed, or that
// typed is the start of, keeping only the nearest (case is ignored);
// maxDist 0 means 2, cobra's default (SuggestionsMinimumDistance). An
// exact match is no suggestion; one in another case is.
func Nearest(typed string, candidates []string, maxDist int) []string {
	if maxDist <= 0 {
		maxDist = 2
	}
	t := strings.ToLower(typed)
	if t == "" {
		return nil
	}
	type hit struct {
		name string
		d    int
	}
	var hits []hit
	seen := map[string]bool{}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if c == typed || seen[c] {
			continue
		}
		d := Distance(t, lc)
		if d <= maxDist || (len(t) >= 2 && strings.HasPrefix(lc, t)) {
			seen[c] = true
			hits = append(hits, hit{c, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].d < hits[j].d })
	var out []string
	for _, h := range hits {
		if h.d > hits[0].d {
			break // only the nearest: "bsh" is bash, not also zsh and fish
		}
		out = append(out, h.name)
	}
	return out
}

// Distance is the Levenshtein distance between a and b, in runes, where
// swapping two neighbours counts as one edit (sesions, exprot).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Phrase is " (did you mean X?)" for the nearest of names, or "" for none;
// quote wraps each name as the caller shows it (a flag's dashes).
func Phrase(names []string, quote func(string) string) string {
	if len(names) == 0 {
		return ""
	}
	if quote == nil {
		quote = func(s string) string { return s }
	}
	if len(names) > 3 {
		names = names[:3]
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return "did you mean " + strings.Join(q, " or ") + "?"
}
