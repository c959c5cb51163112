package ui

import (
	"context"
	"image/color"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/render"
)

// Backend is what the chat needs from a session (*session.Session has it).
type Backend interface {
	Start(ctx context.Context) error
	Attach(ctx context.Context, path string) (kernel.Profile, error)
	Ask(ctx context.Context, prompt string, emit func(agent.Event)) (string, error)
	Reset(ctx context.Context) error
	Undo(ctx context.Context) (Undone, error)
	SetModel(name string) error
	Model() string
	// Files are the attached files, in attach order: the one list the
	// chips, /files and the status bar are drawn from.
	Files() []kernel.Profile
	// SetFigureBox says at what size figures are shown, so the kernel draws
	// them for it.
	SetFigureBox(kernel.FigureBox)
}

// Options configure the chat.
type Options struct {
	Backend Backend
	Inbox   *Inbox   // nil: a new one (no progress lines, no confirm hook)
	Files   []string // attached at launch, already checked
	Images  string   // auto, kitty, iterm, sixel, blocks, off
	Theme   string   // auto, dark, light
	// Share is what the model is shown of the files (values or schema),
	// shown in the status line.
	Share string
	// Thousands groups the digits of numbers in tables (46,624.99).
	Thousands bool
	// OutputDir is the session's folder, where `w` in the table viewer
	// writes; "" turns that off.
	OutputDir string
	// Notices are shown in the transcript as the chat opens (e.g. config's
	// "using Ollama" notice).
	Notices []string
	// CheckFile tells whether a path can be attached beside the files
	// attached already (Session.CheckNewFile), before its upload starts;
	// nil accepts every existing regular file.
	CheckFile func(string) error
	Getenv    func(string) string // nil: os.Getenv
	Now       func() time.Time    // nil: time.Now
	// Open returns the command that shows a file in the system viewer; nil
	// uses xdg-open (open on macOS).
	Open func(path string) *exec.Cmd
	// Resume continues a saved session: its turns shown, its changed
	// inputs asked about, then its kernel rebuilt.
	Resume *Resume
	// Export writes the session for /export [PATH] and returns the files
	// written; nil when the chat cannot.
	Export func(ctx context.Context, path string) ([]string, error)
	// Report checks /report [FORMATS|PATH]'s argument against the session
	// and says what it will write, replacing nothing; nil when the chat
	// cannot. It reads the disk: the chat calls it off the event loop.
	Report func(arg string) (ReportPlan, error)
	// ReportAfterAsk writes the report once the answer to Ask is in (the
	// demo).
	ReportAfterAsk bool
	// FixedModel, when set, is what /model says instead of switching:
	// the demo's model is a script, and this says how to leave it.
	FixedModel string
	// Label is shown first in the status bar for the whole chat (the
	// demo's "scripted model, real sandbox").
	Label string
	// Ask is a question the chat asks by itself once the sandbox has
	// started and the launch files are attached (quarry demo).
	Ask string
	// Sources are the connected databases, for the status bar and
	// /sources; no credentials in them.
	Sources []Source
	// SourceHint is what --db takes, for /sources when there is no
	// database: "NAME=postgres://user@host/db or NAME=mysql://user@host/db".
	SourceHint string
}

// Source is a connected database as the chat shows it.
type Source struct {
	Name   string
	Where  string // user@host/db
	Server string // the server's product and version: "PostgreSQL 17.6"
}

// Model is the chat: the one tea.Model of the package.
type Model struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	inbox  *Inbox

	theme    *theme
	markdown *render.Markdown
	style    render.Style
	depth    render.ColorDepth
	images   render.Protocol
	// What the terminal said it is and draws (termcaps.go).
	term      render.Terminal
	cellAsked bool // the cell size came from the terminal's own reply
	winsize   func() (cellW, cellH int)
	bg        color.Color // the terminal's background, when it told
	// Kitty graphics (kitty.go): on when the protocol is kitty; ids of the
	// images sent, freed at exit.
	kittyOn  bool
	kittyID  func() uint32
	kittyIDs []uint32
	// Sixel and iTerm2 figures (overlay.go): the writer that paints them,
	// nil when the output is not a terminal, and the prepared figures.
	overlay *overlay
	figs    []*figure
	inline  map[int]*inlineImage
	lastKey int
	sentBox kernel.FigureBox // the figure size the session was told

	width, height int

	transcript  transcript
	input       input
	chips       chips
	status      status
	tableView   *tableView
	numbersView *numbersView // ctrl+g: the last answer's numbers and their sources
	confirm     *confirmPrompt
	expanded    bool

	turn          int
	running       bool
	cancelling    bool // Ctrl+C or Esc cancelled the turn; it has not ended yet
	cancelTurn    context.CancelFunc
	turnErr       bool // an EventError was shown for this turn
	turnOver      bool // the turn's answer or error arrived; the session may still be finishing its checkpoint
	cur           *block
	think         *block // the thinking being streamed
	cells         map[int]*block
	spans         []turnSpan       // each question's blocks, for /undo
	savedTables   map[int][]string // cell number -> tables the viewer saved of it, which /undo of the cell removes
	undoing       bool
	lastTable     *kernel.Table
	lastTableCell int
	lastFigure    string

	attaching  int
	pending    []pendingAttach // asked for before the sandbox started
	started    bool            // Start returned (either way)
	quitArmed  bool
	streamTick bool // a stream tick is scheduled
	cellTick   bool // an elapsed-time tick is scheduled
	quitting   bool

	asked       bool      // Options.Ask was sent
	openingTurn int       // the turn Options.Ask started, until its report is written
	resuming    *resuming // a resumed session, until its kernel is rebuilt
	pastCmds    []tea.Cmd // decode the resumed session's figures
}

// New builds the chat model; ctx bounds every session call it makes.
func New(ctx context.Context, opts Options) *Model {
	if opts.Inbox == nil {
		opts.Inbox = NewInbox()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CheckFile == nil {
		opts.CheckFile = regularFile
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Model{opts: opts, ctx: ctx, cancel: cancel, inbox: opts.Inbox, markdown: render.NewMarkdown(), cells: map[int]*block{}}
	m.depth = render.DetectColorDepth(opts.Getenv)
	dark := opts.Theme != "light"
	m.setDark(dark)
	m.term = render.Terminal{Getenv: opts.Getenv}
	m.chooseImages()
	m.kittyID = newKittyIDs()
	m.inline = map[int]*inlineImage{}
	m.status = status{label: opts.Label, model: opts.Backend.Model(), sandbox: "starting", share: opts.Share, sources: len(opts.Sources)}
	for _, f := range opts.Files {
		m.chips.adding(f)
	}
	if opts.Resume != nil {
		m.resuming = &resuming{r: opts.Resume}
		for _, p := range opts.Resume.Inputs {
			m.chips.adding(p)
		}
		m.pastCmds = m.showPast(opts.Resume.Turns)
	}
	for _, n := range opts.Notices {
		m.notice(levelInfo, n)
	}
	return m
}

func (m *Model) setDark(dark bool) {
	m.theme = newTheme(dark, m.depth == render.ColorNone)
	m.style = render.DetectStyle(m.opts.Getenv, dark)
	if m.input.ta.Width() == 0 {
		m.input = newInput(m.theme)
	} else {
		m.input.setTheme(m.theme)
	}
}

// Init starts the sandbox, the launch attachments and the inbox reader.
func (m *Model) Init() tea.Cmd {
	cmds := append([]tea.Cmd{m.inbox.wait(), m.startCmd(), m.cellSizeCmd()}, m.pastCmds...)
	m.pastCmds = nil
	if m.opts.Getenv("TERM") != "dumb" {
		cmds = append(cmds, tea.Raw(render.TerminalQueries))
	}
	if m.opts.Theme == "" || m.opts.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, f := range m.opts.Files {
		m.attaching++
		cmds = append(cmds, m.attachCmd(f, false, false))
	}
	return tea.Batch(cmds...)
}

func (m *Model) rc() renderCtx {
	return renderCtx{width: max(m.width, 20), height: m.height, th: m.theme, now: m.opts.Now(), expanded: m.expanded,
		md: m.markdown, style: m.style, depth: m.depth, images: m.images, thousands: m.opts.Thousands}
}

// View lays out transcript, chips, input (or the confirm prompt) and status.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "quarry"
	if m.width <= 0 || m.height <= 0 || m.quitting {
		return v
	}
	if m.tableView != nil {
		content, _ := fitScreen(m.tableView.Render(m.width, m.height, m.theme), nil, m.width, m.height)
		v.SetContent(m.withPlan(content))
		return v
	}
	content, cur := m.render()
	content, cur = fitScreen(content, cur, m.width, m.height)
	v.SetContent(m.withPlan(content))
	v.Cursor = cur
	return v
}

// withPlan takes the figure marks out of a finished frame and, when the
// overlay paints figures, hands it their places and marks the frame with
// the plan's number (overlay.go).
func (m *Model) withPlan(content string) string {
	content, plan := placeFigures(content, m.inline)
	if m.overlay == nil {
		return content
	}
	return m.overlay.publish(plan) + content
}

// fitScreen clips a frame to the window: components keep a minimum size
// (the transcript 20 columns, the input and status a few rows), so on a
// tiny terminal the frame is cut here, keeping the bottom (input, status).
func fitScreen(s string, cur *tea.Cursor, w, h int) (string, *tea.Cursor) {
	lines := strings.Split(s, "\n")
	cut := false
	if n := len(lines); n > h {
		lines, cut = lines[n-h:], true
		if cur != nil {
			cur.Y -= n - h
		}
	}
	for i, l := range lines {
		if t := truncate(l, w); t != l {
			lines[i], cut = t, true
		}
	}
	if cur != nil && (cur.Y < 0 || cur.Y >= h || cur.X >= w) {
		cur = nil
	}
	if !cut {
		return s, cur
	}
	return strings.Join(lines, "\n"), cur
}

// render draws the main screen; it is View without the tea.View wrapping.
func (m *Model) render() (string, *tea.Cursor) {
	rc := m.rc()
	now := rc.now
	st := m.status
	items := m.fileChips()
	st.files, st.changedFiles = chipCounts(items)
	st.cells, st.table, st.figure = m.transcript.hasCells(), m.lastTable != nil, m.lastFigure != ""
	bottom := st.Render(m.width, now, m.theme, m.running)
	var mid string
	var cur *tea.Cursor
	inputH := 0
	if m.confirm != nil {
		mid = m.confirm.Render(rc)
	} else if m.numbersView != nil {
		mid = m.numbersView.Render(rc)
	} else {
		mid = m.input.Render() // the text area is not cached: render it once
		inputH = lipgloss.Height(mid)
		cur = m.input.cursor()
	}
	if ch := renderChips(items, m.width, m.theme); ch != "" {
		mid = ch + "\n" + mid
	}
	fixed := lipgloss.Height(mid) + lipgloss.Height(bottom) + 1
	th := max(m.height-fixed, 0)
	body := m.transcript.Render(rc, th)
	if len(m.transcript.blocks) == 0 && len(items) == 0 && m.opts.Ask == "" && m.resuming == nil && !m.running && m.confirm == nil {
		body = firstStepsScreen(rc, th)
	}
	sep := m.theme.dim.Render(strings.Repeat("─", m.width))
	if mk := m.transcript.marker(); mk != "" && m.width >= 8 {
		mk = truncate(" "+mk+" ", m.width-2)
		sep = m.theme.dim.Render("──") + m.theme.accent.Render(mk) + m.theme.dim.Render(strings.Repeat("─", max(m.width-2-ansi.StringWidth(mk), 0)))
	}
	if cur != nil {
		cur.Y += th + 1 + lipgloss.Height(mid) - inputH
	}
	parts := []string{}
	if th > 0 {
		parts = append(parts, body)
	}
	parts = append(parts, sep, mid, bottom)
	return strings.Join(parts, "\n"), cur
}

// fileChips are the chips as they stand: the session's files and the
// uploads in flight.
func (m *Model) fileChips() []chip { return m.chips.list(m.opts.Backend.Files()) }

// transcriptHeight is the rows the transcript gets in the current layout.
func (m *Model) transcriptHeight() int {
	mid := lipgloss.Height(m.input.Render())
	if m.confirm != nil {
		mid = lipgloss.Height(m.confirm.Render(m.rc()))
	} else if m.numbersView != nil {
		mid = lipgloss.Height(m.numbersView.Render(m.rc()))
	}
	if ch := renderChips(m.fileChips(), m.width, m.theme); ch != "" {
		mid += lipgloss.Height(ch)
	}
	return max(m.height-mid-3, 1)
}

// firstSteps is what an empty chat (no file, nothing said yet) shows where
// the conversation will be, so the first screen is not blank.
const firstSteps = "No files yet. Drop a file on the terminal, or type /attach PATH (Tab completes): " +
	"CSV, Excel, Parquet, JSON, Stata, SPSS, SAS, or a SQLite or DuckDB database. " +
	"Then ask about it in your own words. /help lists the commands."

func firstStepsScreen(rc renderCtx, height int) string {
	lines := wrapText(firstSteps, max(rc.width-4, 10), "")
	for i, l := range lines {
		lines[i] = "  " + rc.th.dim.Render(l)
	}
	for len(lines) < height {
		lines = append([]string{""}, lines...)
	}
	return strings.Join(lines[len(lines)-height:], "\n")
}
