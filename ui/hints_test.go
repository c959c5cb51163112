package ui

import (
	"strings"
	"testing"
	"time"
)

func TestFitHints(t *testing.T) {
	hs := []hint{{"enter send", 0}, {"alt+enter newline", 3}, {"pgup/pgdn scroll", 2}, {"ctrl+o expand", 1}, {"/help", 0}, {"ctrl+c quit", 0}}
	for _, c := range []struct {
		width int
		want  string
	}{
		{200, "enter send · alt+enter newline · pgup/pgdn scroll · ctrl+o expand · /help · ctrl+c quit"},
		{70, "enter send · pgup/pgdn scroll · ctrl+o expand · /help · ctrl+c quit"},
		{50, "enter send · ctrl+o expand · /help · ctrl+c quit"},
		{35, "enter send · /help · ctrl+c quit"},
		{20, "enter send · /help …"}, // the essential ones, cut
	} {
		if got := fitHints(c.width, hs...); got != c.want {
			t.Errorf("width %d:\n got %q\nwant %q", c.width, got, c.want)
		}
	}
}

func TestShortenPath(t *testing.T) {
	p := "/home/ana/quarry-output/20261129-173235-3761b5/figures/cell2-1.png"
	for _, c := range []struct {
		width int
		want  string
	}{
		{100, p},
		{50, "…/20261129-173235-3761b5/figures/cell2-1.png"},
		{40, "…/figures/cell2-1.png"},
		{21, "…/figures/cell2-1.png"},
		{20, "…/cell2-1.png"},
		{8, "…2-1.png"},
		{1, "…"},
	} {
		if got := shortenPath(p, c.width); got != c.want {
			t.Errorf("width %d: %q, want %q", c.width, got, c.want)
		}
	}
}

// A key is offered once it has something to act on: an empty chat shows no
// "ctrl+t table", a chat with a cell, a table and a figure shows all three.
func TestHintsOfferOnlyWhatIsThere(t *testing.T) {
	th := newTheme(true, true)
	help := func(st status, busy bool) string {
		out := st.Render(200, time.Now(), th, busy)
		return out[strings.LastIndex(out, "\n")+1:]
	}
	for _, busy := range []bool{false, true} {
		empty := help(status{model: "m", sandbox: "ready"}, busy)
		for _, key := range []string{"ctrl+o", "ctrl+t", "ctrl+f"} {
			if strings.Contains(empty, key) {
				t.Errorf("busy %v: an empty chat offers %s: %q", busy, key, empty)
			}
		}
		full := help(status{model: "m", sandbox: "ready", cells: true, table: true, figure: true}, busy)
		for _, key := range []string{"ctrl+o expand", "ctrl+t table", "ctrl+f figure"} {
			if !strings.Contains(full, key) {
				t.Errorf("busy %v: no %q with something to act on: %q", busy, key, full)
			}
		}
	}
}
