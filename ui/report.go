package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// /report writes the session's report (the workbook and the PDF, or the
// formats or file named) through Options.Report, off the event loop; the
// demo writes it by itself once its question is answered.

// reportCmd is /report [xlsx|pdf|html|PATH...].
func (m *Model) reportCmd(arg string) tea.Cmd {
	report, ctx := m.opts.Report, m.ctx
	if report == nil {
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
	m.notice(levelInfo, "Writing the report: the workbook and the PDF are built in a sandbox of their own…")
	return func() tea.Msg {
		files, err := report(ctx, arg)
		return reportedMsg{files: files, err: err}
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
