package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/session"
)

// sessionsCmd is `quarry sessions [--json]` and `quarry sessions rm ID...`.
func (a *app) sessionsCmd() *cobra.Command {
	var jsonOut bool
	c := &cobra.Command{
		Use:   "sessions",
		Short: "List the saved sessions, newest first (rm ID... deletes them)",
		Long: `List the saved sessions, newest first: id, start time, title (the first
question), input files, cells and model. Every chat and every -p run is
saved in its session folder and listed here, from any folder.

With --json, stdout holds one array of objects with id, started (RFC 3339),
title, files (the inputs' original paths), cells, turns, model and dir (the
session folder).`,
		Example: `quarry sessions
quarry sessions --json | jq -r '.[0].id'
quarry --resume 20261129-173235-3761b5
quarry sessions rm 20261129-173235-3761b5`,
		Args: unknownCommand,
		RunE: func(c *cobra.Command, _ []string) error { return a.listSessions(jsonOut) },
	}
	c.Flags().BoolVar(&jsonOut, "json", false, "print one JSON array instead of a table")
	c.AddCommand(&cobra.Command{
		Use:   "rm ID...",
		Short: "Delete sessions: what quarry wrote in their folders (record, figures, files, exports) and their index entries",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(c, "name the sessions to delete: quarry sessions rm ID... (quarry sessions lists them)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return a.removeSessions(c, args) },
	})
	return c
}

func (a *app) listSessions(jsonOut bool) error {
	list, gone, err := session.ListSessions(session.DefaultIndex())
	if err != nil {
		return err
	}
	for _, g := range gone {
		fmt.Fprintf(a.notes, "quarry: session %s: %s (quarry sessions rm %s forgets it)\n", g.ID, render.SanitizeLine(g.Err.Error()), g.ID)
	}
	if jsonOut {
		for i := range list {
			s := &list[i]
			s.Title, s.Model, s.Source = render.SanitizeLine(s.Title), render.SanitizeLine(s.Model), render.SanitizeLine(s.Source)
			for j, f := range s.Files {
				s.Files[j] = render.SanitizeLine(f)
			}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.notes, "quarry: no saved sessions yet: start one with quarry FILE... or quarry -p PROMPT FILE...")
		return nil
	}
	rows := [][]string{{"ID", "STARTED", "CELLS", "MODEL", "FILES", "TITLE"}}
	for _, s := range list {
		names := make([]string, len(s.Files))
		for i, f := range s.Files {
			names[i] = filepath.Base(f)
		}
		title := s.Title
		if s.Source != "" {
			title = "rerun of " + s.Source
		}
		rows = append(rows, []string{s.ID, s.Started.Local().Format("2006-01-02 15:04"), fmt.Sprint(s.Cells),
			render.SanitizeLine(s.Model), render.SanitizeLine(shortList(names, 40)), render.SanitizeLine(title)})
	}
	if !fitColumns(rows, termWidth(a.stdout), 4, 5) {
		// Too narrow for the table: a block per session.
		for _, r := range rows[1:] {
			fmt.Fprintf(a.text, "%s  %s · %s cells · %s\n  %s\n  files: %s\n", r[0], r[1], r[2], r[3], r[5], r[4])
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.text, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// fitColumns cuts the columns cut (files, title) of a table, the widest
// first, until its rows fit width columns (0: no terminal, rows stay
// whole): a table read on a terminal is easier with its names cut than
// with each row wrapped. It says false, cutting nothing, when no cut
// leaves the table narrow enough.
func fitColumns(rows [][]string, width int, cut ...int) bool {
	if width <= 0 || len(rows) == 0 {
		return true
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	total := func() int {
		n := -2
		for _, w := range widths {
			n += w + 2
		}
		return n
	}
	for total() >= width {
		widest := -1
		for _, c := range cut {
			if widths[c] > 10 && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			return false
		}
		widths[widest]--
	}
	for _, r := range rows {
		for _, c := range cut {
			if rs := []rune(r[c]); len(rs) > widths[c] {
				r[c] = string(rs[:widths[c]-1]) + "…"
			}
		}
	}
	return true
}

// shortList joins names, cut to about n characters.
func shortList(names []string, n int) string {
	s := strings.Join(names, ", ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (a *app) removeSessions(c *cobra.Command, ids []string) error {
	var errs []error
	for _, id := range ids {
		if !session.LooksLikeID(id) {
			return usagef(c, "%q is not a session id (quarry sessions lists them)", id)
		}
	}
	for _, id := range ids {
		rm, err := session.RemoveSession(session.DefaultIndex(), id)
		switch {
		case errors.Is(err, session.ErrNoSession):
			errs = append(errs, inputError{err})
		case err != nil:
			errs = append(errs, err)
		case rm.Dir == "":
			fmt.Fprintf(a.notes, "quarry: forgot session %s (its folder was gone)\n", id)
		case len(rm.Kept) > 0:
			fmt.Fprintf(a.notes, "quarry: removed session %s; its folder %s stays, with what quarry did not write there: %s\n",
				id, render.SanitizeLine(rm.Dir), render.SanitizeLine(shortList(rm.Kept, 120)))
		default:
			fmt.Fprintf(a.notes, "quarry: removed session %s and its folder %s\n", id, render.SanitizeLine(rm.Dir))
		}
	}
	return errors.Join(errs...)
}
