package ui

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

func writePNG(t *testing.T, w, h int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fig.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, gradient(w, h)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// figureTurn plays a cell that produced the PNG at path and loads it.
func figureTurn(t *testing.T, m *Model, path string) []tea.Msg {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	typeText(m, "plot it")
	m.Update(press("enter"))
	_, cmd := m.Update(inboxMsg{
		eventMsg{turn: m.turn, ev: agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "plt.plot()"}},
		eventMsg{turn: m.turn, ev: agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Figures: []kernel.File{{Name: "fig.png", Path: path, PNG: data}}}}},
	})
	var msgs []tea.Msg
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		select {
		case msg := <-ch:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case figureMsg:
				_, next := m.Update(msg)
				run(next)
			default:
				msgs = append(msgs, msg)
			}
		case <-time.After(300 * time.Millisecond):
		}
	}
	run(cmd)
	return msgs
}

func TestKittyFiguresUsePlaceholders(t *testing.T) {
	env := map[string]string{"COLORTERM": "truecolor", "TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Images: "kitty",
		Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Update(startedMsg{})
	msgs := figureTurn(t, m, writePNG(t, 200, 100))
	var raw string
	for _, msg := range msgs {
		if r, ok := msg.(tea.RawMsg); ok {
			raw += fmt.Sprint(r.Msg)
		}
	}
	if len(m.kittyIDs) != 1 {
		t.Fatalf("kitty ids %v, want one", m.kittyIDs)
	}
	id := m.kittyIDs[0]
	if !strings.HasPrefix(raw, "\x1b_G") || !strings.Contains(raw, "U=1") || !strings.Contains(raw, fmt.Sprintf("i=%d", id)) {
		t.Fatalf("transmission %.80q lacks a virtual placement for id %d", raw, id)
	}
	s := screen(m)
	fg := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", id>>16&0xFF, id>>8&0xFF, id&0xFF)
	if !strings.Contains(s, fg+string(kitty.Placeholder)) {
		t.Fatal("no placeholder cells coloured with the image id")
	}
	if strings.Contains(s, "\x1b_G") {
		t.Fatal("the transmission leaked into the view")
	}
	if !strings.Contains(s, "fig.png") {
		t.Fatal("the figure's path is missing")
	}
}

func TestHalfBlocksWithoutKitty(t *testing.T) {
	m, _ := newTestModel(t, 100, 40, true)
	msgs := figureTurn(t, m, writePNG(t, 200, 100))
	for _, msg := range msgs {
		if _, ok := msg.(tea.RawMsg); ok {
			t.Fatal("raw escapes sent without kitty")
		}
	}
	if s := screen(m); !strings.Contains(s, "▀") || strings.ContainsRune(s, kitty.Placeholder) {
		t.Fatal("want a half-block thumbnail")
	}
}

// kitty before 0.28 has kitty graphics but no Unicode placeholders: its
// figures are half-blocks, never boxes; from 0.28 on, placeholders.
func TestKittyVersionDecidesPlaceholders(t *testing.T) {
	for _, c := range []struct {
		version     string
		placeholder bool
	}{{"kitty(0.26.5)", false}, {"kitty(0.41.1)", true}} {
		env := map[string]string{"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1", "COLORTERM": "truecolor"}
		m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Images: "auto",
			Getenv: func(k string) string { return env[k] }})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		m.Update(startedMsg{})
		var ok uv.KittyGraphicsEvent
		ok.Options.ID, ok.Payload = 31, []byte("OK")
		for _, msg := range []tea.Msg{tea.TerminalVersionMsg{Name: c.version}, ok, uv.PrimaryDeviceAttributesEvent{62}} {
			m.Update(msg)
		}
		figureTurn(t, m, writePNG(t, 200, 100))
		s := screen(m)
		if got := strings.ContainsRune(s, kitty.Placeholder); got != c.placeholder {
			t.Errorf("%s: placeholders %v, want %v", c.version, got, c.placeholder)
		}
		if !c.placeholder && !strings.Contains(s, "▀") {
			t.Errorf("%s: no half-blocks", c.version)
		}
	}
}
