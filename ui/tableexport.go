package ui

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/quarry-cli/quarry/render"
)

// The table viewer's copy (tab-separated, for pasting into a spreadsheet,
// through OSC 52) and save (CSV in the session folder). Both carry the
// exact values the kernel sent, not the rounded ones shown, in the viewer's
// current order; cells come from the sandbox, so they are sanitized and a
// text cell a spreadsheet would run as a formula is quoted.

// tableRecords is the header and the rows of the table: every column, or
// with column > 0 the index and that one.
func (tv *tableView) tableRecords(column int) [][]string {
	t := tv.t
	keep := func(rec []string) []string {
		if column <= 0 || column >= len(rec) {
			return rec
		}
		return []string{rec[0], rec[column]}
	}
	out := [][]string{keep(append([]string{t.IndexName}, t.Columns...))}
	for _, r := range tv.rows {
		label, exact := t.Exact(r.orig)
		out = append(out, keep(append([]string{label}, exact...)))
	}
	for _, rec := range out {
		for i, c := range rec {
			rec[i] = safeCell(c)
		}
	}
	return out
}

// safeCell makes a cell one line of plain text, and quotes one that starts
// like a formula (=, +, -, @) unless it is a number.
func safeCell(s string) string {
	s = strings.Join(strings.Fields(sanitizeLine(s)), " ")
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			s = "'" + s
		}
	}
	return s
}

// tsv joins records with tabs and new lines, as spreadsheets paste them.
func tsv(recs [][]string) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(strings.Join(r, "\t"))
		b.WriteString("\n")
	}
	return b.String()
}

// tableSavedMsg reports a table written as CSV.
type tableSavedMsg struct {
	cell int
	path string
	rows int
	err  error
}

// writeTableCmd writes the records as CSV to tables/cellN.csv in the
// session folder (cellN-2.csv and so on when it exists), off the event loop.
func writeTableCmd(dir string, cell int, recs [][]string) tea.Cmd {
	return func() tea.Msg {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := w.WriteAll(recs); err != nil {
			return tableSavedMsg{err: err}
		}
		folder := filepath.Join(dir, "tables")
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return tableSavedMsg{err: err}
		}
		for n := 1; n < 1000; n++ {
			name := fmt.Sprintf("cell%d.csv", cell)
			if n > 1 {
				name = fmt.Sprintf("cell%d-%d.csv", cell, n)
			}
			p := filepath.Join(folder, name)
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return tableSavedMsg{err: err}
			}
			_, err = f.Write(buf.Bytes())
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return tableSavedMsg{cell: cell, path: p, rows: len(recs) - 1, err: err}
		}
		return tableSavedMsg{err: errors.New("too many tables of this cell saved already")}
	}
}

// tableAct carries out what a key in the viewer asked for.
func (m *Model) tableAct(a tableAction) tea.Cmd {
	tv := m.tableView
	switch a {
	case tableCopy, tableCopyColumn:
		col := 0
		if a == tableCopyColumn {
			col = max(tv.sel, 1)
		}
		recs := tv.tableRecords(col)
		what := "the table"
		if col > 0 && col < len(tv.cols) {
			what = "column " + tv.cols[col]
		}
		tv.note = fmt.Sprintf("copied %s (%s) to the clipboard", what, plural(len(recs)-1, "row"))
		if len(tv.rows) < tv.t.Rows {
			tv.note += ", the rows shown only"
		}
		return tea.SetClipboard(tsv(recs))
	case tableWrite:
		if m.opts.OutputDir == "" {
			tv.note = "no session folder to save into"
			return nil
		}
		tv.note = "saving…"
		return writeTableCmd(m.opts.OutputDir, m.lastTableCell, tv.tableRecords(0))
	}
	return nil
}

// tableSaved shows where the table went.
func (m *Model) tableSaved(msg tableSavedMsg) {
	note := ""
	switch {
	case msg.err != nil:
		note = "not saved: " + msg.err.Error()
	default:
		if m.savedTables == nil {
			m.savedTables = map[int][]string{}
		}
		m.savedTables[msg.cell] = append(m.savedTables[msg.cell], msg.path) // /undo of the cell removes it
		note = fmt.Sprintf("saved %s to %s", plural(msg.rows, "row"), msg.path)
		if m.lastTable != nil && msg.rows < m.lastTable.Rows {
			note += fmt.Sprintf(" (the %d shown of %s; to_csv in a cell saves them all)", msg.rows, render.GroupInt(m.lastTable.Rows))
		}
	}
	if m.tableView != nil {
		m.tableView.note, m.tableView.notePath = note, msg.path
	} else {
		m.notice(levelInfo, note)
	}
}
