package config

import (
	"github.com/quarry-cli/quarry/suggest"

	"fmt"
	"sort"
	"strings"
)

// layer is where a value came from.
type layer int

const (
	layerDefault layer = iota
	layerFile
	layerEnv
	layerFlag
)

// Error is a bad setting: where it is (file and line, environment variable
// or flag), which key, what is wrong and how to fix it. Values quoted in it
// are never the API key: the key is not a setting.
type Error struct {
	File    string // config file, "" when the value came from elsewhere
	Line    int    // 1-based line in File, 0 when unknown
	Where   string // "env QUARRY_TIMEOUT", "flag --timeout" when not in a file
	Key     string // TOML key (dotted inside profiles and prices)
	Problem string
	Fix     string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "" && e.Where != "" && !strings.Contains(e.Where, e.File):
		fmt.Fprintf(&b, "%s (%s): ", e.File, e.Where)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Where != "":
		b.WriteString(e.Where + ": ")
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "key %s: ", e.Key)
	}
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString("\n  fix: " + e.Fix)
	}
	return b.String()
}

// closest returns up to n candidates nearest to name: by edit distance,
// with a bonus for a shared prefix or containment.
func closest(name string, candidates []string, n int, onlyNear bool) []string {
	type scored struct {
		s     string
		score int
	}
	lname := strings.ToLower(name)
	var all []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := suggest.Distance(lname, lc)
		p := commonPrefix(lname, lc)
		score := d*2 - min(p, 8)
		if strings.Contains(lc, lname) || strings.Contains(lname, lc) {
			score -= 4
		}
		near := d <= max(2, len(lname)/3) || p >= 4 || (len(lname) >= 3 && strings.Contains(lc, lname))
		if onlyNear && !near {
			continue
		}
		all = append(all, scored{c, score})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score < all[j].score
		}
		return all[i].s < all[j].s
	})
	var out []string
	for i := 0; i < len(all) && len(out) < n; i++ {
		out = append(out, all[i].s)
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
