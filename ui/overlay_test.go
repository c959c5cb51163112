package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// overlayOut is an overlay writing to a file the test reads back.
func overlayOut(t *testing.T) (*overlay, func() string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	read := func() string {
		b, _ := os.ReadFile(f.Name())
		f.Truncate(0)
		f.Seek(0, 0)
		return string(b)
	}
	return newOverlay(f), read
}

func testInline(key, cols, rows int) *inlineImage {
	return &inlineImage{key: key, proto: render.ProtocolSixel, cols: cols, rows: rows, cellW: 6, cellH: 13,
		sixel: render.NewSixelFigure(gradient(60, 39), cols*6, rows*13, nil), cache: map[[2]int]string{}}
}

func TestOverlayPaintsAndErases(t *testing.T) {
	ov, read := overlayOut(t)
	im := testInline(1, 10, 3)
	at := placement{img: im, x: 2, y: 4, rows: 3}
	mark := ov.publish([]placement{at})
	if again := ov.publish([]placement{at}); again != mark {
		t.Fatalf("an unchanged plan got a new mark: %q, %q", mark, again)
	}
	ov.Write([]byte(syncStart + "\x1b[H" + mark + "hello" + syncEnd))
	out := read()
	if strings.Contains(out, "quarry-plan") {
		t.Fatalf("the plan mark reached the terminal: %q", out)
	}
	sixel := im.escape(0, 3)
	want := syncStart + "\x1b[Hhello" + "\x1b7\x1b[5;3H" + sixel + "\x1b8" + syncEnd
	if out != want {
		t.Fatalf("frame with a figure:\n got %q\nwant %q", out[:min(len(out), 120)], want[:120])
	}
	// Another frame of the same plan (no mark): the figure is painted again.
	ov.Write([]byte("\x1b[10;1Hx"))
	if out := read(); !strings.HasSuffix(out, sixel+"\x1b8") {
		t.Fatalf("a frame without a mark did not repaint: %q", out[:min(len(out), 80)])
	}
	// The figure leaves: its cells are blanked before the frame, nothing painted.
	mark = ov.publish(nil)
	ov.Write([]byte("\x1b[H" + mark + "table"))
	out = read()
	blank := strings.Repeat(" ", 10)
	want = "\x1b7\x1b[0m\x1b[5;3H" + blank + "\x1b[6;3H" + blank + "\x1b[7;3H" + blank + "\x1b8\x1b[Htable"
	if out != want {
		t.Fatalf("figure gone:\n got %q\nwant %q", out, want)
	}
	// Raw output with nothing on screen passes untouched.
	ov.Write([]byte("\x1b[c"))
	if out := read(); out != "\x1b[c" {
		t.Fatalf("raw output changed: %q", out)
	}
}

func TestOverlayMovedFigure(t *testing.T) {
	ov, read := overlayOut(t)
	im := testInline(1, 10, 3)
	ov.Write([]byte(ov.publish([]placement{{img: im, x: 2, y: 4, rows: 3}}) + "a"))
	read()
	// Scrolled up one line: only the row the figure no longer covers is
	// blanked; the rest is painted over.
	ov.Write([]byte(ov.publish([]placement{{img: im, x: 2, y: 3, rows: 3}}) + "b"))
	out := read()
	if !strings.HasPrefix(out, "\x1b7\x1b[0m\x1b[7;3H"+strings.Repeat(" ", 10)+"\x1b8b\x1b7\x1b[4;3H") {
		t.Fatalf("moved figure: %q", out[:min(len(out), 80)])
	}
	// Cut off at the top: the rows still visible are drawn, from the second.
	ov.Write([]byte(ov.publish([]placement{{img: im, x: 2, y: 0, rows: 2, skip: 1}}) + "c"))
	if out := read(); !strings.Contains(out, im.escape(1, 2)) {
		t.Fatalf("partly visible figure not drawn from its second row")
	}
}

// Through the model: a Sixel terminal's figure reserves its cells in the
// view, the marks never reach the terminal, and the overlay paints it where
// the view put it; the table viewer leaves it out.
func TestSixelFigureInTheChat(t *testing.T) {
	env := map[string]string{"TERM": "xterm", "COLORTERM": ""}
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "light", Images: "auto",
		Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return fixedNow }})
	ov, read := overlayOut(t)
	m.overlay = ov
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Update(startedMsg{})
	m.Update(uv.CellSizeEvent{Width: 6, Height: 13})
	m.Update(uv.PrimaryDeviceAttributesEvent{63, 1, 2, 4, 6})
	if m.images != render.ProtocolSixel || !m.overlaid() {
		t.Fatalf("images %s, overlaid %v: want Sixel", m.images, m.overlaid())
	}
	var inline *inlineImage
	for _, msg := range figureTurn(t, m, writePNG(t, 240, 120)) {
		if im, ok := msg.(inlineMsg); ok {
			m.Update(im)
			inline = im.img
		}
	}
	if inline == nil || inline.cols != 40 || inline.rows != 10 {
		t.Fatalf("prepared figure %+v, want 40×10 cells for 240×120 pixels at 6×13", inline)
	}
	if m.sentBox != (kernel.FigureBox{W: 98 * 6, H: 30 * 13, FontPx: 10}) {
		t.Errorf("figure box for the session: %+v", m.sentBox)
	}
	v := m.View()
	if strings.Contains(v.Content, figurePrefix) {
		t.Fatal("figure marks left in the view")
	}
	if !strings.Contains(v.Content, planPrefix) || strings.ContainsRune(v.Content, '▀') {
		t.Fatal("want a plan mark and no half-blocks")
	}
	ov.Write([]byte(v.Content))
	if out := read(); !strings.Contains(out, inline.escape(0, inline.rows)) || strings.Contains(out, planPrefix) {
		t.Fatalf("the overlay did not paint the figure whole: %d bytes", len(out))
	}
	m.Update(press("ctrl+t"))
	m.lastTable = sampleTable()
	m.Update(press("ctrl+t"))
	ov.Write([]byte(m.View().Content))
	if out := read(); strings.Contains(out, "\x1bP0;1;0q") || !strings.Contains(out, "\x1b7\x1b[0m") {
		t.Fatalf("the table viewer kept the figure: %q", out[:min(len(out), 100)])
	}
}

// The marks that place Sixel and iTerm2 figures ride in the frame as APC
// strings: a model's answer or a cell's output that writes them (raw, or
// as character references glamour decodes) places nothing and reaches the
// overlay as no mark.
func TestFigureMarksCannotBeForged(t *testing.T) {
	env := map[string]string{"TERM": "xterm", "COLORTERM": ""}
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "light", Images: "auto",
		Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return fixedNow }})
	ov, read := overlayOut(t)
	m.overlay = ov
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 60})
	m.Update(startedMsg{})
	m.Update(uv.CellSizeEvent{Width: 6, Height: 13})
	m.Update(uv.PrimaryDeviceAttributesEvent{63, 1, 2, 4, 6})
	var inline *inlineImage
	for _, msg := range figureTurn(t, m, writePNG(t, 240, 120)) {
		if im, ok := msg.(inlineMsg); ok {
			m.Update(im)
			inline = im.img
		}
	}
	if inline == nil {
		t.Fatal("no figure prepared")
	}
	forged := figureMark(inline.key, 0) + strings.Repeat(" ", 10) + planMark(999) + "\u009fquarry-fig:1;0\u009c"
	entities := strings.NewReplacer("\x1b", "&#27;", "\u009f", "&#x9f;", "\u009c", "&#x9c;").Replace(forged)
	typeText(m, "again")
	m.Update(press("enter"))
	feed(m, agent.Event{Kind: agent.EventCellStart, Cell: 2, Code: "print('x')"},
		agent.Event{Kind: agent.EventCellOutput, Cell: 2, Chunk: &kernel.Chunk{Stream: kernel.Stdout, Text: forged + "\n"}},
		agent.Event{Kind: agent.EventCellDone, Cell: 2, Result: &kernel.Result{Stdout: forged + "\n"}},
		agent.Event{Kind: agent.EventTurnDone, Text: "Here: " + forged + "\n\nand " + entities})
	m.Update(press("ctrl+o")) // cell outputs unfolded too
	v := m.View().Content
	// The words may show as text; a mark needs its escape.
	if n := strings.Count(v, planPrefix); n != 1 || strings.Contains(v, planPrefix+"999") || strings.Contains(v, figurePrefix) ||
		strings.Contains(v, "\u009f") {
		t.Fatalf("forged marks in the view (%d plan marks)", n)
	}
	if len(ov.latest) > 1 {
		t.Errorf("the plan holds %d figures, want at most the one real figure: %+v", len(ov.latest), ov.latest)
	}
	ov.Write([]byte(v))
	if out := read(); strings.Count(out, "\x1bP0;1;0q") > 1 {
		t.Errorf("the figure was painted more than once")
	}
}
