package ui

import (
	"context"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// panicBackend panics in Model (before the program runs) or in Start (in a
// command, inside the program).
type panicBackend struct {
	fakeBackend
	inModel bool
}

func (p *panicBackend) Model() string {
	if p.inModel {
		panic("boom in Model")
	}
	return "m"
}

func (p *panicBackend) Start(ctx context.Context) error { panic("boom in Start") }

// TestRunTurnsPanicsIntoErrors: the chat's caller must get control back to
// remove the sandbox, whatever panics.
func TestRunTurnsPanicsIntoErrors(t *testing.T) {
	for _, inModel := range []bool{true, false} {
		inR, inW := io.Pipe()
		err := Run(context.Background(), Options{Backend: &panicBackend{inModel: inModel}, Theme: "dark", Getenv: testEnv(true)},
			tea.WithInput(inR), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24), tea.WithoutSignals())
		inW.Close()
		if err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Errorf("inModel=%v: Run returned %v, want an internal error", inModel, err)
		}
	}
}
