package ui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
)

// counting wraps the chat and counts the messages it gets.
type counting struct {
	*Model
	n *atomic.Int64
}

func (c counting) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- c.Model.running
		return c, nil
	}
	c.n.Add(1)
	_, cmd := c.Model.Update(msg)
	return c, cmd
}

// TestNoWorkWhileIdle runs the real program: once a turn is over, nothing
// ticks (no cursor blink, no timers), so an idle chat costs no CPU.
func TestNoWorkWhileIdle(t *testing.T) {
	fb := &fakeBackend{events: []agent.Event{
		{Kind: agent.EventText, Text: "Hi"},
		{Kind: agent.EventCellStart, Cell: 1, Code: "1"},
		{Kind: agent.EventCellDone, Cell: 1},
		{Kind: agent.EventTurnDone, Text: "Hi there."},
	}}
	var n atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Options{Backend: fb, Theme: "dark", Getenv: testEnv(true)})
	inR, inW := io.Pipe()
	defer inW.Close()
	p := tea.NewProgram(counting{m, &n}, tea.WithInput(inR), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	time.Sleep(200 * time.Millisecond)
	for _, r := range "hello" {
		p.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if len(fb.askedCopy()) == 1 && !m.runningNow(p) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(cellEvery + 300*time.Millisecond) // the last ticks already scheduled fire once
	before := n.Load()
	time.Sleep(1500 * time.Millisecond)
	if extra := n.Load() - before; extra != 0 {
		t.Errorf("%d messages reached the idle chat in 1.5s; want none", extra)
	}
	p.Quit()
	<-done
}

func (f *fakeBackend) askedCopy() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// runningNow reads the model's running flag on the program's goroutine.
func (m *Model) runningNow(p *tea.Program) bool {
	ch := make(chan bool, 1)
	p.Send(probeMsg{ch})
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Second):
		return true
	}
}

type probeMsg struct{ reply chan bool }

func (c counting) Init() tea.Cmd { return c.Model.Init() }

// TestFastStreamArrivesWhole streams 5,000 deltas through the real program
// (far above 200 tokens a second): none is lost or reordered.
func TestFastStreamArrivesWhole(t *testing.T) {
	var evs []agent.Event
	var want strings.Builder
	for i := range 5000 {
		d := fmt.Sprintf("w%d ", i)
		if i%200 == 199 {
			d += "\n\n"
		}
		want.WriteString(d)
		evs = append(evs, agent.Event{Kind: agent.EventText, Text: d})
	}
	fb := &fakeBackend{events: evs}
	var n atomic.Int64
	m := New(context.Background(), Options{Backend: fb, Theme: "dark", Getenv: testEnv(true)})
	inR, inW := io.Pipe()
	defer inW.Close()
	p := tea.NewProgram(counting{m, &n}, tea.WithInput(inR), tea.WithOutput(io.Discard), tea.WithWindowSize(100, 40), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	time.Sleep(100 * time.Millisecond)
	p.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	deadline := time.Now().Add(10 * time.Second)
	for len(fb.askedCopy()) == 0 || m.runningNow(p) {
		if time.Now().After(deadline) {
			t.Fatal("the stream did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.Quit()
	<-done
	var got string
	for _, b := range m.transcript.blocks {
		if b.kind == kindAssistant {
			got += b.text
		}
	}
	if got != want.String() {
		t.Fatalf("streamed text differs: got %d bytes, want %d", len(got), want.Len())
	}
	if msgs := n.Load(); msgs > 2000 {
		t.Errorf("%d messages for 5,000 deltas: the inbox does not batch", msgs)
	}
}
