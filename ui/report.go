package ui

import (
	"context"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// /report writes the session's report (the workbook and the PDF, or the
// formats or file named) through Options.Report, off the event loop; the
// demo writes it by itself once its question is answered. Its argument is
// checked and its files named before the chat says it is writing them.

// ReportPlan is what /report will write, checked and named before
// anything is written: no file is replaced (Options.Report picks free
// names) and a session with nothing to report is refused.
type ReportPlan struct {
	Files []string // the files it will write, in order
	Built bool     // some (the workbook, the PDF) are built in a sandbox of their own
	Write func(ctx context.Context) ([]string, error)
}

// reportCmd is /report [xlsx|pdf|html|PATH...].
func (m *Model) reportCmd(arg string) tea.Cmd {
	plan := m.opts.Report
	if plan == nil {
		m.notice(levelError, "/report is not available in this chat.")
		return nil
	}
	if m.running {
		m.status.hint = "An answer is running: /report writes the session as it stands once it is done (Esc cancels it)."
		return nil
	}
	if toks, ok := shellWords(arg); ok {
		for i, t := range toks {
			if p, ok := pathToken(t); ok {
				toks[i] = p
			}
		}
		arg = strings.Join(toks, " ")
	}
	return func() tea.Msg { // the plan reads the record and the folder
		p, err := plan(arg)
		return reportPlannedMsg{plan: p, err: err}
	}
}

type reportPlannedMsg struct {
	plan ReportPlan
	err  error
}

// reportPlanned says what is being written, then writes it.
func (m *Model) reportPlanned(msg reportPlannedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice(levelError, "/report: "+msg.err.Error())
		return nil
	}
	text := "Writing the report: " + sanitizeLine(joinAnd(m.shortNames(msg.plan.Files)))
	if msg.plan.Built {
		text += ", built in a sandbox of its own" // the files are named: no format is said that is not written
	}
	m.notice(levelInfo, text+"…")
	write, ctx := msg.plan.Write, m.ctx
	return func() tea.Msg {
		files, err := write(ctx)
		return reportedMsg{files: files, err: err}
	}
}

// shortNames are paths in the session's folder by their name there, others
// as they are.
func (m *Model) shortNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(m.opts.OutputDir, p); err == nil && m.opts.OutputDir != "" && !strings.HasPrefix(rel, "..") {
			out[i] = rel
		}
	}
	return out
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	switch n := len(words); n {
	case 0:
		return ""
	case 1:
		return words[0]
	default:
		return strings.Join(words[:n-1], ", ") + " and " + words[n-1]
	}
}

type reportedMsg struct {
	files []string
	err   error
}

func (m *Model) reported(msg reportedMsg) {
	if len(msg.files) > 0 {
		m.notice(levelInfo, "Report written:\n"+sanitizeLines(msg.files))
	}
	if msg.err != nil {
		m.notice(levelError, "/report: "+msg.err.Error())
	}
}

// reportAfterOpening writes the report once the question the chat asked
// by itself is answered, when Options.ReportAfterAsk says so.
func (m *Model) reportAfterOpening(msg turnEndMsg) tea.Cmd {
	if !m.opts.ReportAfterAsk || m.openingTurn == 0 || msg.turn != m.openingTurn {
		return nil
	}
	m.openingTurn = 0
	if msg.err != nil || m.turnErr {
		return nil // the failure is on screen; /report still works
	}
	return m.reportCmd("")
}

func sanitizeLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = sanitizeLine(l)
	}
	return strings.Join(out, "\n")
}
