package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// Resume is a saved session the chat continues (quarry --resume).
type Resume struct {
	ID string
	// Turns are shown as they were; their figures carry the bytes checked
	// when they were read back from the session folder.
	Turns []agent.PastTurn
	// Changed are the inputs whose files changed or vanished since: the
	// chat asks about each before anything runs.
	Changed []ChangedInput
	// Inputs are the host files of the session's inputs as recorded: their
	// chips show as uploading until the restore ends.
	Inputs []string
	// Restore brings back the inputs, the conversation and the kernel;
	// paths names the file chosen for each changed input. It returns the
	// inputs it attached, also when it failed after them.
	Restore func(ctx context.Context, paths map[string]string) ([]RestoredInput, error)
	// Notice, when set, is what the chat says as it opens instead of the
	// resumed session's counts (a notebook continued: its cells run in
	// Restore and show as they run).
	Notice string
}

// RestoredInput is an input the restore attached again.
type RestoredInput struct {
	Path    string // the host file it was read from now
	Profile kernel.Profile
	Changed bool            // other data than the earlier turns used
	Before  *kernel.Profile // as the earlier turns read it, when recorded
}

// ChangedInput is an input whose file is not as the session left it.
type ChangedInput struct {
	Name    string // under /data
	Path    string // where it was
	Problem string // "has changed since the session (…)", "is gone"
	Gone    bool   // no file to use as it is now
}

// resuming is the chat's progress through a Resume; the Model drops it
// once the restore ended, and questions wait until then.
type resuming struct {
	r        *Resume
	asked    int               // the Changed input being asked about
	paths    map[string]string // the answers so far
	checking bool              // an answer's file is being checked
	done     bool              // Restore was started
}

type (
	remapCheckedMsg struct {
		name, path string
		err        error
	}
	restoredMsg struct {
		inputs []RestoredInput
		err    error
	}
)

// showPast puts the earlier turns on screen, as they were shown then; the
// figures decode in commands that Init runs.
func (m *Model) showPast(turns []agent.PastTurn) []tea.Cmd {
	var cmds []tea.Cmd
	cells := 0
	for _, t := range turns {
		first := len(m.transcript.blocks)
		if t.Question != "" {
			m.transcript.add(&block{kind: kindUser, text: t.Question})
			m.input.remember(t.Question)
		}
		for _, c := range t.Cells {
			res := c.Result
			m.cells[c.Num] = m.transcript.add(&block{kind: kindCell, cell: &cellState{num: c.Num, code: c.Code}})
			cmds = append(cmds, m.cellDone(agent.Event{Kind: agent.EventCellDone, Cell: c.Num, Code: c.Code, Result: &res}))
			cells++
		}
		if t.Answer != "" {
			m.transcript.add(&block{kind: kindAssistant, text: t.Answer, numbers: t.Numbers})
		}
		if n := len(m.transcript.blocks); n > first { // /undo can take it back too
			m.spans = append(m.spans, turnSpan{first: m.transcript.blocks[first], last: m.transcript.blocks[n-1]})
		}
	}
	if m.resuming.r.Notice != "" {
		m.notice(levelInfo, m.resuming.r.Notice)
		return cmds
	}
	m.notice(levelInfo, fmt.Sprintf("Resumed session %s: %s, %s. The kernel is rebuilt by running the cells that succeeded again.",
		m.resuming.r.ID, plural(len(turns), "question"), plural(cells, "cell")))
	return cmds
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return render.GroupInt(n) + " " + what + "s"
}

// afterStart asks about the next changed input, or starts the restore
// once every one has its file.
func (m *Model) afterStart() tea.Cmd {
	rs := m.resuming
	if rs == nil || rs.done {
		return nil
	}
	if rs.asked < len(rs.r.Changed) {
		c := rs.r.Changed[rs.asked]
		text := fmt.Sprintf("%s: %s %s.\nPress Enter to use it as it is now, or type the path of another file and press Enter.", c.Name, c.Path, c.Problem)
		m.status.hint = "enter: use " + c.Name + " as it is now · or type a path, then enter"
		m.input.ta.Placeholder = "Enter uses " + c.Name + " as it is now; or type the path of another file"
		if c.Gone {
			text = fmt.Sprintf("%s: %s %s.\nType the path of the file to use instead and press Enter.", c.Name, c.Path, c.Problem)
			m.status.hint = "type the path of the file to use for " + c.Name + ", then enter"
			m.input.ta.Placeholder = "The path of the file to use for " + c.Name
		}
		m.notice(levelWarn, text)
		return nil
	}
	m.input.ta.Placeholder = askPlaceholder
	rs.done = true
	restore, ctx, paths := rs.r.Restore, m.ctx, rs.paths
	return func() tea.Msg {
		in, err := restore(ctx, paths)
		return restoredMsg{inputs: in, err: err}
	}
}

// askingInput tells whether the input line answers a changed-input
// question rather than asking the model.
func (m *Model) askingInput() bool {
	return m.resuming != nil && !m.resuming.done && m.started && m.resuming.asked < len(m.resuming.r.Changed)
}

// answerInput checks the file the user named for the input asked about
// (in a command: it reads the disk).
func (m *Model) answerInput(text string) tea.Cmd {
	rs := m.resuming
	if rs.checking {
		return nil
	}
	c := rs.r.Changed[rs.asked]
	path := strings.TrimSpace(text)
	if toks, ok := shellWords(path); ok && len(toks) == 1 {
		path = toks[0]
	}
	if p, ok := pathToken(path); ok {
		path = p
	}
	if path == "" {
		if c.Gone {
			m.notice(levelError, c.Name+": there is no file to use as it is now: type the path of one.")
			return nil
		}
		path = c.Path
	}
	rs.checking = true
	check, name := m.opts.CheckFile, c.Name
	return func() tea.Msg { return remapCheckedMsg{name: name, path: path, err: check(path)} }
}

func (m *Model) remapChecked(msg remapCheckedMsg) tea.Cmd {
	rs := m.resuming
	rs.checking = false
	if msg.err != nil {
		m.notice(levelError, msg.err.Error()+" Type another path.")
		return nil
	}
	if rs.paths == nil {
		rs.paths = map[string]string{}
	}
	rs.paths[msg.name] = msg.path
	rs.asked++
	m.status.hint = ""
	return m.afterStart()
}

func (m *Model) restored(msg restoredMsg) {
	m.status.progress = ""
	m.dropResumeChips()
	for _, in := range msg.inputs {
		m.chips.setChanged(in.Profile.Name, in.Changed)
		if in.Changed {
			m.notice(levelInfo, changedShape(in))
		}
	}
	m.resuming = nil
	if msg.err != nil {
		m.notice(levelError, msg.err.Error()+". The chat goes on: the model is told what is missing.")
		return
	}
	m.notice(levelInfo, "Kernel rebuilt: ask on.")
}

// exportCmd writes the session with Options.Export.
func (m *Model) exportCmd(path string) tea.Cmd {
	export, ctx := m.opts.Export, m.ctx
	if export == nil {
		m.notice(levelError, "/export is not available in this chat.")
		return nil
	}
	toks, ok := shellWords(path)
	switch {
	case ok && len(toks) == 1:
		path = toks[0]
	case ok && len(toks) > 1:
		m.notice(levelError, "/export takes one PATH: quote a name with spaces, e.g. /export 'q2 review.ipynb'.")
		return nil
	}
	if p, ok := pathToken(path); ok {
		path = p
	}
	return func() tea.Msg {
		files, err := export(ctx, path)
		return exportedMsg{files: files, err: err}
	}
}

type exportedMsg struct {
	files []string
	err   error
}

func (m *Model) exported(msg exportedMsg) {
	if msg.err != nil {
		m.notice(levelError, "/export: "+msg.err.Error())
		return
	}
	m.notice(levelInfo, "Exported:\n"+strings.Join(msg.files, "\n"))
}

// dropResumeChips removes the chips of the resumed inputs still uploading:
// the restore says which it attached (or it never ran).
func (m *Model) dropResumeChips() {
	if m.resuming == nil {
		return
	}
	for _, p := range m.resuming.r.Inputs {
		m.chips.done(p)
	}
}

// changedShape confirms what a changed input is now: "budget_q1.csv now 49
// × 4 (48 × 4 in the earlier turns), from /srv/budget_q1.csv".
func changedShape(in RestoredInput) string {
	p := in.Profile
	s := fmt.Sprintf("%s now %s × %d", sanitizeLine(p.Name), render.GroupInt(p.Rows), len(p.Columns))
	if b := in.Before; b != nil {
		if b.Rows == p.Rows && len(b.Columns) == len(p.Columns) {
			s += " (the same shape as in the earlier turns)"
		} else {
			s += fmt.Sprintf(" (%s × %d in the earlier turns)", render.GroupInt(b.Rows), len(b.Columns))
		}
	}
	return s + ", read from " + sanitizeLine(in.Path) + "."
}
