package ui

import tea "charm.land/bubbletea/v2"

// askOpening sends Options.Ask once, when the sandbox has started and no
// launch file is still being attached, as if the user had typed it. A
// sandbox that did not start asks nothing (startedMsg): its error is on
// screen.
func (m *Model) askOpening() tea.Cmd {
	q := m.opts.Ask
	if q == "" || m.asked || !m.started || m.attaching > 0 || m.running || m.resuming != nil {
		return nil
	}
	m.asked = true
	m.transcript.toBottom()
	b := m.transcript.add(&block{kind: kindUser, text: q})
	m.spans = append(m.spans, turnSpan{first: b, last: b})
	cmd := m.ask(q)
	m.openingTurn = m.turn
	return cmd
}
