package ui

import (
	"context"
	"errors"
	"image"
	"image/color"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// fakeBackend records calls; Ask replays scripted events.
type fakeBackend struct {
	mu        sync.Mutex
	box       kernel.FigureBox
	model     string
	attached  []string
	asked     []string
	resets    int
	events    []agent.Event
	undos     int
	undone    Undone // what Undo reports
	undoErr   error
	files     []kernel.Profile // what Files lists: Attach adds to it
	attachErr error            // what Attach answers instead, leaving files as they are
}

func (f *fakeBackend) Start(ctx context.Context) error { return nil }
func (f *fakeBackend) SetFigureBox(b kernel.FigureBox) {
	f.mu.Lock()
	f.box = b
	f.mu.Unlock()
}
func (f *fakeBackend) Attach(ctx context.Context, path string) (kernel.Profile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attached = append(f.attached, path)
	if f.attachErr != nil {
		return kernel.Profile{}, f.attachErr
	}
	name := filepath.Base(path)
	for _, p := range f.files { // as the session refuses it
		if p.Name == name {
			return kernel.Profile{}, errors.New(path + " is already attached as " + name + ": it is there to use, as it was")
		}
	}
	p := kernel.Profile{Name: name, Path: "/data/" + name, Size: 12345, Rows: 1200, Columns: make([]kernel.Column, 7)}
	f.files = append(f.files, p)
	return p, nil
}
func (f *fakeBackend) Files() []kernel.Profile {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]kernel.Profile(nil), f.files...)
}

// attachedAs is an upload's end as the session reports it: p joins the
// session's files and the chat hears of it.
func attachedAs(m *Model, path string, p kernel.Profile) {
	fb := m.opts.Backend.(*fakeBackend)
	fb.mu.Lock()
	fb.files = append(fb.files, p)
	fb.mu.Unlock()
	m.Update(attachedMsg{path: path, profile: p})
}
func (f *fakeBackend) Ask(ctx context.Context, prompt string, emit func(agent.Event)) (string, error) {
	f.mu.Lock()
	f.asked = append(f.asked, prompt)
	evs := f.events
	f.mu.Unlock()
	for _, e := range evs {
		emit(e)
	}
	return "", nil
}
func (f *fakeBackend) Reset(ctx context.Context) error { f.resets++; return nil }
func (f *fakeBackend) Undo(ctx context.Context) (Undone, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.undos++
	return f.undone, f.undoErr
}
func (f *fakeBackend) SetModel(name string) error { f.model = name; return nil }
func (f *fakeBackend) Model() string {
	if f.model == "" {
		return "gpt-test"
	}
	return f.model
}

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func testEnv(dark bool) func(string) string {
	return func(k string) string {
		switch k {
		case "COLORTERM":
			return "truecolor"
		case "TERM":
			return "xterm-256color"
		}
		return ""
	}
}

// newTestModel is a chat at a fixed size, time and background.
func newTestModel(t testing.TB, w, h int, dark bool) (*Model, *fakeBackend) {
	t.Helper()
	return newTestModelEnv(t, w, h, dark, testEnv(dark))
}

// newTestModelEnv is newTestModel with an environment of its own (NO_COLOR).
func newTestModelEnv(t testing.TB, w, h int, dark bool, env func(string) string) (*Model, *fakeBackend) {
	t.Helper()
	fb := &fakeBackend{}
	theme := "light"
	if dark {
		theme = "dark"
	}
	m := New(context.Background(), Options{Backend: fb, Theme: theme, Images: "blocks", Getenv: env, Share: "values",
		Now: func() time.Time { return fixedNow }, Thousands: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "ready"}})
	m.Update(startedMsg{})
	return m, fb
}

// feed applies agent events of the current turn as the inbox would.
func feed(m *Model, evs ...agent.Event) {
	batch := inboxMsg{}
	for _, e := range evs {
		batch = append(batch, eventMsg{turn: m.turn, ev: e})
	}
	m.Update(batch)
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+home":
		return tea.KeyPressMsg{Code: tea.KeyHome, Mod: tea.ModCtrl}
	case "ctrl+end":
		return tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl}
	}
	if len(s) > 5 && s[:5] == "ctrl+" {
		return tea.KeyPressMsg{Code: rune(s[5]), Mod: tea.ModCtrl}
	}
	if len(s) > 4 && s[:4] == "alt+" {
		if s[4:] == "enter" {
			return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
		}
		return tea.KeyPressMsg{Code: rune(s[4]), Mod: tea.ModAlt}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the main screen without the tea.View wrapper.
func screen(m *Model) string {
	s, _ := m.render()
	return s
}

func gradient(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return img
}

func sampleTable() *kernel.Table {
	return &kernel.Table{
		Columns: []string{"region", "revenue", "units"},
		Dtypes:  []string{"object", "float64", "int64"},
		Index:   []string{"0", "1", "2", "3"},
		Head:    [][]string{{"North", "1200.5", "10"}, {"South", "980.25", "32"}, {"East", "15000.0", "7"}, {"West", "77.70000000000002", "120"}},
		// As pandas displays them: one number of decimals for the column.
		Display:      [][]string{{"North", "1200.50", "10"}, {"South", "980.25", "32"}, {"East", "15000.00", "7"}, {"West", "77.70", "120"}},
		IndexDisplay: []string{"0", "1", "2", "3"},
		Rows:         4, Cols: 3,
	}
}

// conversation plays one complete turn with a cell, a table and a figure.
func conversation(m *Model) {
	typeText(m, "What is the revenue by region?")
	m.Update(press("enter"))
	feed(m,
		agent.Event{Kind: agent.EventText, Text: "Let me look at the **sales** data."},
		agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "df.groupby('region')['revenue'].sum()", Time: fixedNow.Add(-2 * time.Second)},
		agent.Event{Kind: agent.EventCellOutput, Cell: 1, Chunk: &kernel.Chunk{Stream: kernel.Stdout, Text: "computing\n"}},
		agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: "computing\n", Duration: 1200 * time.Millisecond,
			Value:   &kernel.Value{Repr: "table", Table: sampleTable()},
			Figures: []kernel.File{{Name: "fig1.png", Path: "/tmp/quarry-output/s1/fig1.png", Size: 2048, Width: 40, Height: 20}}}},
		agent.Event{Kind: agent.EventUsage, Usage: &agent.Usage{Total: agent.Tokens{Prompt: 1500, Completion: 230, CostUSD: 0.0123}}},
		agent.Event{Kind: agent.EventText, Text: "North leads with **1,200.5**."},
		agent.Event{Kind: agent.EventTurnDone, Text: "The revenue is highest in the **East** (15,000)."},
	)
	m.Update(figureMsg{cell: 1, fig: &figure{file: kernel.File{Name: "fig1.png", Path: "/tmp/quarry-output/s1/fig1.png"}, img: gradient(40, 20)}})
	m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
}

// drain runs cmd and the commands it returns, applying each message, until
// nothing is left; commands that block (the inbox reader) are abandoned
// after a short wait.
func drain(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 200; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(300 * time.Millisecond):
			continue
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func contextCanceled() error { return context.Canceled }
