package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// What a new user meets first, at every width of the chat, in colour and
// under NO_COLOR: an answer's emphasis and headings rendered (never their
// markup), paths broken only after a "/", a flooded output's fold line
// counting what the output cap dropped, and the first steps (an empty
// chat says how to attach a file; /attach says in the transcript what it
// attached).
const (
	firstPath     = "quarry-output/20261203-112054-3052ef/figures/cell1-1.png"
	firstMarkdown = "## Regional revenue, Q1 to Q2\n\n**Budget Q2 against Q1**: the *East* leads.\n\n" +
		"- North: 1,200.50\n- East: 15,000.00\n\n| region | revenue |\n|---|---:|\n| North | 1,200.50 |\n| East | 15,000.00 |\n"
)

var foldLine = regexp.MustCompile(`… 1,99[67] earlier lines; 18 MiB dropped by the output cap \(ctrl\+o expands\)`)

var firstScreens = []struct {
	name  string
	setup func(t *testing.T, m *Model)
	check func(plain string) string // what the screen must show, or ""
}{
	{"markdown", func(t *testing.T, m *Model) {
		m.transcript.add(&block{kind: kindAssistant, text: firstMarkdown})
	}, func(s string) string {
		if strings.Contains(s, "**") || strings.Contains(s, "##") || strings.Contains(s, "*East*") {
			return "Markdown markup on screen"
		}
		if !strings.Contains(s, "Regional revenue") || !strings.Contains(s, "Budget Q2 against Q1") {
			return "the heading or the bold text is missing"
		}
		return ""
	}},
	{"paths", func(t *testing.T, m *Model) {
		m.transcript.add(&block{kind: kindUser, text: "open " + firstPath + " please"})
		m.transcript.add(&block{kind: kindAssistant, text: "The figure is at " + firstPath + ", a change of -2,000."})
		m.notice(levelInfo, "figures and files of this session are in "+firstPath)
	}, func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " "), "-") {
				return fmt.Sprintf("a line ends at a hyphen: %q", l)
			}
		}
		for _, part := range strings.SplitAfter(firstPath, "/") {
			if strings.Count(s, part) < 3 {
				return fmt.Sprintf("%q is not whole on a line three times: the path is cut inside a name", part)
			}
		}
		return ""
	}},
	{"fold", func(t *testing.T, m *Model) {
		var out strings.Builder
		for i := range 1000 {
			fmt.Fprintf(&out, "%d\n", i)
		}
		out.WriteString("\n[... 18,874,368 bytes of output dropped ...]\n")
		for i := 199001; i < 200001; i++ {
			fmt.Fprintf(&out, "%d\n", i)
		}
		typeText(m, "print 200,001 lines")
		m.Update(press("enter"))
		feed(m,
			agent.Event{Kind: agent.EventCellStart, Cell: 1, Code: "for i in range(200001):\n    print(i)", Time: fixedNow.Add(-2 * time.Second)},
			agent.Event{Kind: agent.EventCellDone, Cell: 1, Result: &kernel.Result{Stdout: out.String(), Dropped: 18 << 20, Duration: 2 * time.Second}},
			agent.Event{Kind: agent.EventTurnDone, Text: "Printed."})
		m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	}, func(s string) string {
		// the kernel's marker is one line or two, by the width
		if !foldLine.MatchString(strings.Join(strings.Fields(s), " ")) {
			return "the fold line does not count what was dropped"
		}
		return ""
	}},
	{"empty", func(t *testing.T, m *Model) {}, func(s string) string {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), "No files yet. Drop a file on the terminal, or type /attach PATH") {
			return "the empty chat does not say how to attach a file"
		}
		return ""
	}},
	{"attach", func(t *testing.T, m *Model) {
		p := filepath.Join(t.TempDir(), "sales.csv")
		if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		typeText(m, "/attach "+p)
		_, cmd := m.Update(press("enter"))
		drain(t, m, cmd)
	}, func(s string) string {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), "Attached sales.csv 12.1 KiB · 1,200 × 7: ask about it.") ||
			strings.Contains(s, "No files yet") {
			return "/attach left no line in the transcript"
		}
		return ""
	}},
}

func TestFirstScreensGolden(t *testing.T) {
	for _, c := range firstScreens {
		for _, w := range []int{40, 80, 120, 200} {
			for _, color := range []bool{true, false} {
				env, name := testEnv(true), "color"
				if !color {
					env, name = noColorEnv(true), "nocolor"
				}
				t.Run(fmt.Sprintf("%s_%s_%d", c.name, name, w), func(t *testing.T) {
					m, _ := newTestModelEnv(t, w, 24, true, env)
					c.setup(t, m)
					s := screen(m)
					if problem := c.check(ansi.Strip(s)); problem != "" {
						t.Errorf("%s:\n%s", problem, ansi.Strip(s))
					}
					var b bytes.Buffer
					cw := &colorprofile.Writer{Forward: &b, Profile: colorProfile(env)}
					cw.WriteString(s)
					golden.RequireEqual(t, b.String())
				})
			}
		}
	}
}
