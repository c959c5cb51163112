package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// input is the multi-line prompt with its history. Enter is handled by the
// Model (it sends); Alt+Enter and Ctrl+J insert a newline here.
type input struct {
	ta      textarea.Model
	history []string
	hpos    int // index into history while browsing; len(history) when not
}

const maxInputHeight = 8

// askPlaceholder is the empty input's text when it takes a question.
const askPlaceholder = "Ask about your data, /help for commands"

func newInput(th *theme) input {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.ShowLineNumbers = false
	ta.Placeholder = askPlaceholder
	ta.CharLimit = 0
	ta.MaxHeight = maxInputHeight // visible rows; longer input scrolls
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxContentHeight = 5000 // rows of content accepted
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	// These keys belong to the chat (expand, table, figure).
	ta.KeyMap.TransposeCharacterBackward = key.NewBinding(key.WithDisabled())
	ta.KeyMap.CharacterForward = key.NewBinding(key.WithKeys("right"))
	ta.KeyMap.SelectAll = key.NewBinding(key.WithDisabled())
	// A real terminal cursor: no blink timer, so no work while idle.
	ta.SetVirtualCursor(false)
	in := input{ta: ta}
	in.setTheme(th)
	in.ta.Focus()
	return in
}

func (in *input) setTheme(th *theme) {
	s := textarea.DefaultStyles(th.dark)
	s.Cursor.Blink = false
	s.Focused.CursorLine = s.Focused.Text
	s.Focused.Prompt = th.prompt
	s.Focused.Placeholder = th.dim
	in.ta.SetStyles(s)
}

func (in *input) setWidth(w int) { in.ta.SetWidth(max(w, 4)) }

func (in *input) value() string { return in.ta.Value() }

func (in *input) empty() bool { return strings.TrimSpace(in.ta.Value()) == "" }

func (in *input) reset() {
	in.ta.Reset()
	in.hpos = len(in.history)
}

func (in *input) setValue(s string) {
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
}

func (in *input) remember(s string) {
	if n := len(in.history); n == 0 || in.history[n-1] != s {
		in.history = append(in.history, s)
	}
	in.hpos = len(in.history)
}

// browsing reports whether Up/Down should walk the history: the input is
// empty or still shows an unchanged history entry.
func (in *input) browsing() bool {
	if in.empty() {
		return true
	}
	return in.hpos < len(in.history) && in.ta.Value() == in.history[in.hpos]
}

func (in *input) historyUp() {
	if in.hpos == 0 || len(in.history) == 0 {
		return
	}
	in.hpos--
	in.setValue(in.history[in.hpos])
}

func (in *input) historyDown() {
	if in.hpos >= len(in.history) {
		return
	}
	in.hpos++
	if in.hpos == len(in.history) {
		in.ta.Reset()
		return
	}
	in.setValue(in.history[in.hpos])
}

// HandleMsg passes keys and pastes to the text area.
func (in *input) HandleMsg(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

func (in *input) Render() string { return in.ta.View() }

// cursor is the terminal cursor relative to the input's top-left corner.
func (in *input) cursor() *tea.Cursor { return in.ta.Cursor() }
