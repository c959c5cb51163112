package export

import "strings"

// answerTop is the highest heading level an answer may use: the report's
// title is 1 and each question's heading 2, so the answer's headings sit
// under its question's.
const answerTop = 3

// demoteHeadings shifts the Markdown's headings (ATX and setext, outside
// code fences) down so the highest is at level top, keeping their order
// (## and ### become ### and ####); at most level 6.
func demoteHeadings(md string, top int) string {
	lines := strings.Split(md, "\n")
	type heading struct {
		line, level int
		setext      bool // lines[line] is the underline, lines[line-1] the text
	}
	var hs []heading
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		indent := len(l) - len(t)
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(t), fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOf(t); f != "" && indent < 4 {
			fence = f
			continue
		}
		if indent >= 4 {
			continue
		}
		if n := atxLevel(t); n > 0 {
			hs = append(hs, heading{line: i, level: n})
			continue
		}
		if i > 0 && strings.TrimSpace(lines[i-1]) != "" && !isHeadingOrBreak(lines[i-1]) {
			switch u := strings.TrimSpace(t); {
			case u != "" && strings.Trim(u, "=") == "":
				hs = append(hs, heading{line: i, level: 1, setext: true})
			case u != "" && strings.Trim(u, "-") == "" && !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "|"):
				hs = append(hs, heading{line: i, level: 2, setext: true})
			}
		}
	}
	if len(hs) == 0 {
		return md
	}
	high := 6
	for _, h := range hs {
		high = min(high, h.level)
	}
	shift := top - high
	if shift <= 0 {
		return md
	}
	drop := map[int]bool{}
	for _, h := range hs {
		level := min(h.level+shift, 6)
		if h.setext {
			lines[h.line-1] = strings.Repeat("#", level) + " " + strings.TrimSpace(lines[h.line-1])
			drop[h.line] = true
			continue
		}
		t := strings.TrimLeft(lines[h.line], " ")
		lines[h.line] = strings.Repeat("#", level) + t[h.level:]
	}
	out := lines[:0]
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// atxLevel is the level of an ATX heading line ("## x", "##"), or 0.
func atxLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

func isHeadingOrBreak(l string) bool {
	t := strings.TrimSpace(l)
	return atxLevel(t) > 0 || fenceOf(t) != "" || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, ">")
}
