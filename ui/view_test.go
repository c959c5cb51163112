package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/quarry-cli/quarry/kernel"
)

func TestViewGolden(t *testing.T) {
	for _, dark := range []bool{false, true} {
		name := "light"
		if dark {
			name = "dark"
		}
		t.Run("conversation_80x40_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 40, dark)
			m.Update(attachedMsg{path: "/tmp/sales.csv", profile: (&fakeBackend{}).mustProfile()})
			conversation(m)
			golden.RequireEqual(t, screen(m))
		})
		t.Run("confirm_80x24_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24, dark)
			m.Update(inboxMsg{confirmRequest{cell: 2, code: "import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\ndf.describe()", reply: make(chan confirmReply, 1)}})
			golden.RequireEqual(t, screen(m))
		})
		t.Run("table_60x14_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 60, 14, dark)
			m.lastTable = sampleTable()
			m.Update(press("ctrl+t"))
			m.Update(press("right"))
			m.Update(press("s"))
			golden.RequireEqual(t, m.View().Content)
		})
		t.Run("empty_60x12_"+name, func(t *testing.T) {
			m, _ := newTestModel(t, 60, 12, dark)
			golden.RequireEqual(t, screen(m))
		})
	}
}

func (f *fakeBackend) mustProfile() (p kernel.Profile) {
	p, err := f.Attach(nil, "x")
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return p
}
