package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/suggest"
)

// slashCommand is one row of the chat's command table: /help lists the
// rows, "did you mean" knows their names, slash dispatches on them and a
// resumed chat asking about an input lets through the ones marked so.
type slashCommand struct {
	name    string
	aliases []string
	args    string // as /help shows them: "PATH", "[PATH]"; "" takes none, and one given is refused
	help    string
	// whileAsking: it still works while the chat asks about a changed
	// input (any other line is the answer).
	whileAsking bool
	run         func(m *Model, arg string) tea.Cmd
}

// slashCommands is the table. A new command is a row here and its handler;
// nothing else lists them.
var slashCommands []slashCommand

func init() { // a var's initializer cannot refer to the table through /help
	slashCommands = []slashCommand{
		{name: "/attach", args: "PATH...", help: "attach data files or databases: " + filekind.Formats() + "; patterns such as data/*.csv are expanded (Tab completes; dropping a file works too)", run: (*Model).attachCommand},
		{name: "/files", help: "list the attached files", run: func(m *Model, _ string) tea.Cmd { m.notice(levelInfo, m.filesText()); return nil }},
		{name: "/sources", help: "list the databases sql(query, db=NAME) reaches", run: func(m *Model, _ string) tea.Cmd { m.notice(levelInfo, m.sourcesText()); return nil }},
		{name: "/undo", help: "take back the last question: its answer, its cells' variables and files go", run: func(m *Model, _ string) tea.Cmd { return m.undoCmd() }},
		{name: "/reset", help: "fresh kernel with the same files; the model forgets the conversation", run: (*Model).resetCommand},
		{name: "/clear", help: "clear the screen (the conversation stays)", run: (*Model).clearCommand},
		{name: "/model", args: "NAME", help: "switch the model", run: (*Model).modelCommand},
		{name: "/export", args: "[PATH]", help: "write the session as PATH (.ipynb, .md or .html); alone, all three into its folder", run: (*Model).exportCmd},
		{name: "/report", args: "[FORMAT|PATH]", help: "write the report people pass on: alone, the workbook and the PDF into the session's folder; xlsx, pdf, html or a file", run: (*Model).reportCmd},
		{name: "/tokens", help: "tokens and cost so far", run: func(m *Model, _ string) tea.Cmd {
			m.notice(levelInfo, tokensText(m.status.usage, m.status.model))
			return nil
		}},
		{name: "/help", help: "this help", whileAsking: true, run: func(m *Model, _ string) tea.Cmd { m.notice(levelInfo, helpText()); return nil }},
		{name: "/quit", aliases: []string{"/exit", "/q"}, help: "leave (Ctrl+C twice at idle does too)", whileAsking: true, run: func(m *Model, _ string) tea.Cmd { return m.quit() }},
	}
}

// lookupSlash finds the row a typed name means, by name or alias.
func lookupSlash(name string) (slashCommand, bool) {
	for _, c := range slashCommands {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return slashCommand{}, false
}

// slashNames are every name and alias, for "did you mean".
func slashNames() []string {
	var names []string
	for _, c := range slashCommands {
		names = append(names, c.name)
		names = append(names, c.aliases...)
	}
	return names
}

// slash runs a /command.
func (m *Model) slash(text string) tea.Cmd {
	name, arg, _ := strings.Cut(text, " ")
	if c, ok := lookupSlash(name); ok {
		arg = strings.TrimSpace(arg)
		if c.args == "" && arg != "" { // checked before anything is done or said
			m.notice(levelError, fmt.Sprintf("%s takes no argument, and did nothing: type %s alone (/help lists the commands).", c.name, c.name))
			return nil
		}
		return c.run(m, arg)
	}
	if p := suggest.Phrase(suggest.Nearest(name, slashNames(), 0), nil); p != "" {
		m.notice(levelError, fmt.Sprintf("Unknown command %s: %s (/help lists them)", name, p))
		return nil
	}
	m.notice(levelError, fmt.Sprintf("Unknown command %s: try /help.", name))
	return nil
}

// whileAsking tells the commands that still work while the chat asks
// about an input; any other line, /home/... included, is the answer.
func whileAsking(text string) bool {
	name, _, _ := strings.Cut(text, " ")
	c, ok := lookupSlash(name)
	return ok && c.whileAsking
}

const helpKeys = `Keys:
  Enter send · Alt+Enter or Ctrl+J newline · Up/Down history (input empty)
  PgUp/PgDn, wheel, Alt+Up/Down scroll · Ctrl+Home/End top/bottom
  Ctrl+O expand/fold cell output · Ctrl+T latest table full screen · Ctrl+F open latest figure
  Ctrl+G step through the last answer's numbers: each highlighted, and where it comes from
  Esc or Ctrl+C cancel a running answer`

// helpText is /help: the commands with two spaces at least between the
// columns, which is what keeps them two columns when a line wraps.
func helpText() string {
	usage := func(c slashCommand) string { return strings.TrimSpace(c.name + " " + c.args) }
	w := 0
	for _, c := range slashCommands {
		w = max(w, len(usage(c)))
	}
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, usage(c), c.help)
	}
	return b.String() + helpKeys
}

func (m *Model) resetCommand(string) tea.Cmd {
	if m.running {
		m.status.hint = "An answer is running: press Esc to cancel it first."
		return nil
	}
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg { return resetMsg{err: b.Reset(ctx)} }
}

func (m *Model) clearCommand(string) tea.Cmd {
	m.transcript.clear()
	m.cur, m.think = nil, nil
	m.cells = map[int]*block{}
	return nil
}

func (m *Model) modelCommand(arg string) tea.Cmd {
	if m.opts.FixedModel != "" {
		m.notice(levelInfo, "Model: "+m.status.model+". "+m.opts.FixedModel)
		return nil
	}
	if arg == "" {
		m.notice(levelInfo, "Model: "+m.status.model+" (switch with /model NAME)")
		return nil
	}
	b := m.opts.Backend
	return func() tea.Msg { return modelSetMsg{name: arg, err: b.SetModel(arg)} }
}
