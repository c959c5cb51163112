package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

func TestEnterSendsAltEnterInsertsNewline(t *testing.T) {
	m, fb := newTestModel(t, 80, 24, true)
	typeText(m, "first line")
	m.Update(press("alt+enter"))
	typeText(m, "second")
	m.Update(press("ctrl+j"))
	typeText(m, "third")
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
	if len(fb.asked) != 1 || fb.asked[0] != "first line\nsecond\nthird" {
		t.Fatalf("asked %q, want one three-line prompt", fb.asked)
	}
	if m.input.value() != "" {
		t.Fatalf("input not cleared: %q", m.input.value())
	}
	if !strings.Contains(plain(m), "second") {
		t.Fatalf("user message not in transcript:\n%s", plain(m))
	}
}

func TestHistoryUpDownWhenEmpty(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, true)
	for _, q := range []string{"one", "two"} {
		typeText(m, q)
		m.Update(press("enter"))
		m.Update(inboxMsg{turnEndMsg{turn: m.turn}})
	}
	m.Update(press("up"))
	if got := m.input.value(); got != "two" {
		t.Fatalf("up: %q, want two", got)
	}
	m.Update(press("up"))
	if got := m.input.value(); got != "one" {
		t.Fatalf("up up: %q, want one", got)
	}
	m.Update(press("down"))
	m.Update(press("down"))
	if got := m.input.value(); got != "" {
		t.Fatalf("down past the end: %q, want empty", got)
	}
}

func TestPasteOfFilePathsAttaches(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "my sales.csv")
	b := filepath.Join(dir, "b.csv")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("x,y\n1,2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, fb := newTestModel(t, 100, 24, true)
	_, cmd := m.Update(tea.PasteMsg{Content: "'" + a + "' file://" + b + "\n"})
	drain(t, m, cmd)
	if len(fb.attached) != 2 || fb.attached[0] != a || fb.attached[1] != b {
		t.Fatalf("attached %q", fb.attached)
	}
	if m.input.value() != "" {
		t.Fatalf("paste inserted text: %q", m.input.value())
	}
	if s := plain(m); !strings.Contains(s, "my sales.csv 12.3 kB · 1,200 × 7") && !strings.Contains(s, "my sales.csv") {
		t.Fatalf("chip missing:\n%s", s)
	}
	// Text that only looks like a path is inserted.
	_, cmd = m.Update(tea.PasteMsg{Content: "/no/such/file.csv"})
	drain(t, m, cmd)
	if m.input.value() != "/no/such/file.csv" {
		t.Fatalf("non-existing path not inserted as text: %q", m.input.value())
	}
}

func TestSlashCommands(t *testing.T) {
	m, fb := newTestModel(t, 100, 40, true)
	run := func(s string) {
		typeText(m, s)
		_, cmd := m.Update(press("enter"))
		drain(t, m, cmd)
	}
	run("/model gpt-other")
	if fb.model != "gpt-other" || m.status.model != "gpt-other" {
		t.Fatalf("/model: backend %q, status %q", fb.model, m.status.model)
	}
	run("/reset")
	if fb.resets != 1 || !strings.Contains(plain(m), "Fresh kernel") {
		t.Fatalf("/reset not done:\n%s", plain(m))
	}
	run("/attach /no/such/file.csv")
	if !strings.Contains(plain(m), "/no/such/file.csv: stat") || len(fb.attached) != 0 {
		t.Fatalf("/attach of a missing file:\n%s", plain(m))
	}
	run("/files")
	run("/tokens")
	run("/nope")
	run("/exprot")
	run("/FIles")
	s := plain(m)
	for _, want := range []string{"No files attached", "Session: 0 + 0", "Unknown command /nope: try /help",
		"Unknown command /exprot: did you mean /export?", "Unknown command /FIles: did you mean /files?"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q:\n%s", want, s)
		}
	}
	run("/clear")
	if len(m.transcript.blocks) != 0 {
		t.Fatal("/clear left blocks")
	}
	run("/help")
	if !strings.Contains(plain(m), "/attach PATH") {
		t.Fatal("/help missing")
	}
	typeText(m, "/quit")
	_, cmd := m.Update(press("enter"))
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("/quit did not quit")
	}
}

func TestAttachCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"sales_2024.csv", "sales_2025.csv", "other.xlsx"} {
		os.WriteFile(filepath.Join(dir, n), []byte("a\n1\n"), 0o600)
	}
	m, _ := newTestModel(t, 100, 24, true)
	typeText(m, "/attach "+dir+"/sa")
	_, cmd := m.Update(press("tab"))
	drain(t, m, cmd)
	if got, want := m.input.value(), "/attach "+dir+"/sales_202"; got != want {
		t.Fatalf("completion %q, want %q", got, want)
	}
	typeText(m, "5")
	_, cmd = m.Update(press("tab"))
	drain(t, m, cmd)
	if got, want := m.input.value(), "/attach "+dir+"/sales_2025.csv"; got != want {
		t.Fatalf("completion %q, want %q", got, want)
	}
}

func TestLongInputScrollsInsideItsBox(t *testing.T) {
	m, fb := newTestModel(t, 60, 24, true)
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	m.Update(tea.PasteMsg{Content: strings.Join(lines, "\n")})
	if h := lipgloss.Height(m.input.Render()); h > maxInputHeight {
		t.Fatalf("input is %d rows high, want at most %d", h, maxInputHeight)
	}
	if got := len(strings.Split(screen(m), "\n")); got != 24 {
		t.Fatalf("screen has %d lines, want 24", got)
	}
	_, cmd := m.Update(press("enter"))
	drain(t, m, cmd)
	if len(fb.asked) != 1 || !strings.HasSuffix(fb.asked[0], "line 39") {
		t.Fatalf("long prompt lost: %q", fb.asked)
	}
}

func TestPastedPaths(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		in   string
		want []string
	}{
		{"/data/sales.csv", []string{"/data/sales.csv"}},
		{"'/data/my sales.csv'", []string{"/data/my sales.csv"}},
		{`"/data/q\"1.csv"`, []string{`/data/q"1.csv`}},
		{`/data/my\ sales.csv /data/b.csv`, []string{"/data/my sales.csv", "/data/b.csv"}},
		{"file:///data/my%20sales.csv\nfile://localhost/data/b.csv\n", []string{"/data/my sales.csv", "/data/b.csv"}},
		{"~/q.csv", []string{filepath.Join(home, "q.csv")}},
		{"./rel/a.csv ../b.csv", []string{"./rel/a.csv", "../b.csv"}},
		{"what is the mean of /data/a.csv", nil},
		{"sales.csv", nil},
		{"file://otherhost/a.csv", nil},
		{"'/unterminated", nil},
		// Pasted as is (spaces, a quote): the whole line is one candidate.
		{"/data/Bob's data.csv", []string{"/data/Bob's data.csv"}},
		{"/data/my sales.csv\n'/data/b.csv'", []string{"/data/my sales.csv", "/data/b.csv"}},
		{"   ", nil},
	}
	for _, tt := range tests {
		got := pastedPaths(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || (got == nil) != (tt.want == nil) {
			t.Errorf("pastedPaths(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAttachCompletionKeepsRunesWhole: 数据 and 数拟 share the first byte
// of their second rune; the completion must stop before it (the text area
// happens to drop the stray byte, the message must not carry it).
func TestAttachCompletionKeepsRunesWhole(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"数据.csv", "数拟.csv"} {
		os.WriteFile(filepath.Join(dir, n), []byte("a\n1\n"), 0o600)
	}
	msg, _ := completePath(dir + "/")().(completionMsg)
	if want := dir + "/数"; msg.value != want {
		t.Fatalf("completion %q, want %q", msg.value, want)
	}
}

// TestPasteOfUnescapedPathAttaches: terminals that paste a dropped path
// without quoting (spaces, apostrophes) still attach it.
func TestPasteOfUnescapedPathAttaches(t *testing.T) {
	p := filepath.Join(t.TempDir(), "Bob's sales 2025.csv")
	if err := os.WriteFile(p, []byte("x\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, fb := newTestModel(t, 100, 24, true)
	_, cmd := m.Update(tea.PasteMsg{Content: p})
	drain(t, m, cmd)
	if len(fb.attached) != 1 || fb.attached[0] != p || m.input.value() != "" {
		t.Fatalf("attached %q, input %q", fb.attached, m.input.value())
	}
}
