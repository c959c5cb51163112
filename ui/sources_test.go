package ui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/quarry-cli/quarry/agent"
	"github.com/quarry-cli/quarry/kernel"
)

// chinook is the profile of an attached SQLite sample database: 11
// tables, 984 KiB; its largest table (the profile's main one) is
// playlist_track, 8,715 × 2.
func chinook(name string) kernel.Profile {
	tables := []struct {
		name       string
		rows, cols int
	}{{"albums", 347, 3}, {"artists", 275, 2}, {"customers", 59, 13}, {"employees", 8, 15}, {"genres", 25, 2},
		{"invoice_items", 2240, 5}, {"invoices", 412, 9}, {"media_types", 5, 2}, {"playlist_track", 8715, 2},
		{"playlists", 18, 2}, {"tracks", 3503, 9}}
	p := kernel.Profile{Name: name, Path: "/data/" + name, Size: 984 << 10, Kind: "sqlite", Tables: len(tables),
		Rows: 8715, Columns: make([]kernel.Column, 2)}
	for _, t := range tables {
		p.Sheets = append(p.Sheets, kernel.Sheet{Name: t.name, Rows: t.rows, Columns: make([]kernel.Column, t.cols)})
	}
	return p
}

func ware() kernel.Profile {
	return kernel.Profile{Name: "ware.duckdb", Path: "/data/ware.duckdb", Size: 12 << 20, Kind: "duckdb", Tables: 2,
		Sheets: []kernel.Sheet{{Name: "stock", Rows: 1_250_000, Columns: make([]kernel.Column, 4)}, {Name: "shipments_by_week", Rows: 0}}}
}

func attachProfile(m *Model, p kernel.Profile) {
	m.chips.adding("/home/ana/" + p.Name)
	attachedAs(m, "/home/ana/"+p.Name, p)
}

var twoServers = []Source{
	{Name: "sales", Where: "quarry@/run/mysqld/mysqld.sock/sales", Server: "MariaDB 10.11.19"},
	{Name: "crm", Where: "analyst@db.example.com:5432/crm", Server: "PostgreSQL 17.6"},
}

func sourcesModel(t *testing.T, w, h int, env func(string) string, sources []Source) *Model {
	t.Helper()
	m := New(context.Background(), Options{Backend: &fakeBackend{}, Theme: "dark", Images: "blocks", Getenv: env, Share: "values",
		Now: func() time.Time { return fixedNow }, Thousands: true, Sources: sources,
		SourceHint: "NAME=postgres://user@host/db or NAME=mysql://user@host/db"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(inboxMsg{sessionMsg{Kind: agent.EventSandbox, Text: "ready"}})
	m.Update(startedMsg{})
	return m
}

func TestConnectedSourcesInStatusAndSlashSources(t *testing.T) {
	m := sourcesModel(t, 120, 30, testEnv(true), twoServers[:1])
	if s := screen(m); !strings.Contains(s, "1 database") {
		t.Fatalf("the status bar does not say a database is connected:\n%s", s)
	}
	m.slash("/sources")
	if s := screen(m); !strings.Contains(s, `db="sales": MariaDB 10.11.19, quarry@/run/mysqld/mysqld.sock/sales`) {
		t.Fatalf("/sources:\n%s", s)
	}

	plain := sourcesModel(t, 120, 30, testEnv(true), nil)
	plain.slash("/sources")
	if s := screen(plain); strings.Contains(s, "1 database") || !strings.Contains(s, "No database: start quarry with --db") ||
		plain.sourcesText() != "No database: start quarry with --db NAME=postgres://user@host/db or NAME=mysql://user@host/db, or attach a SQLite or DuckDB file." {
		t.Fatalf("without sources:\n%s", s)
	}
}

// An attached SQLite or DuckDB file is a database sql(db=) reads: /sources
// lists it by the name db= takes, with its tables and size, and its chip
// shows it as a database, not as its largest table.
func TestAttachedDatabaseFilesInSlashSourcesAndChips(t *testing.T) {
	m := sourcesModel(t, 200, 40, testEnv(true), nil)
	attachProfile(m, chinook("chinook.db"))
	s := screen(m)
	if !strings.Contains(s, "chinook.db 11 tables · 984 KiB") || strings.Contains(s, "8,715 × 2") {
		t.Fatalf("the chip of a database:\n%s", s)
	}
	m.slash("/sources")
	s = screen(m)
	for _, want := range []string{`db="chinook": SQLite file chinook.db, 11 tables, 984 KiB`,
		"albums 347 × 3, artists 275 × 2, customers 59 × 13", "playlist_track 8,715 × 2"} {
		if !strings.Contains(strings.ReplaceAll(s, nbsp, " "), want) || strings.Contains(s, "No database") {
			t.Fatalf("/sources lacks %q:\n%s", want, s)
		}
	}

	// Two files answering to one name: the first in /data's order keeps
	// it, the other is reached by its whole name; a server of that name is
	// not reached at all, since the kernel looks at the files first.
	m = sourcesModel(t, 200, 40, testEnv(true), []Source{{Name: "chinook", Where: "a@db/chinook", Server: "PostgreSQL 17.6"}})
	attachProfile(m, chinook("chinook.sqlite"))
	attachProfile(m, chinook("chinook.db"))
	attachProfile(m, ware())
	text := strings.ReplaceAll(m.sourcesText(), nbsp, " ")
	for _, want := range []string{`db="chinook": SQLite file chinook.db`, `db="chinook.sqlite": SQLite file chinook.sqlite`,
		`not reachable: db="chinook" reads the attached file chinook.db first`, `db="ware": DuckDB file ware.duckdb, 2 tables, 12 MiB`,
		"stock 1,250,000 × 4, shipments_by_week 0 rows", "… and 0 more"} {
		if strings.Contains(text, want) != (want != "… and 0 more") {
			t.Errorf("/sources and %q:\n%s", want, text)
		}
	}
}

// /sources with two servers and two database files, at every width, in
// colour and under NO_COLOR.
func TestSourcesGolden(t *testing.T) {
	for _, w := range []int{40, 80, 120, 200} {
		for _, color := range []bool{true, false} {
			name := "color"
			env := testEnv(true)
			if !color {
				name = "nocolor"
				env = func(k string) string {
					if k == "NO_COLOR" {
						return "1"
					}
					return testEnv(true)(k)
				}
			}
			t.Run(fmt.Sprintf("%s_%d", name, w), func(t *testing.T) {
				m := sourcesModel(t, w, 30, env, twoServers)
				attachProfile(m, chinook("chinook.db"))
				attachProfile(m, ware())
				m.slash("/sources")
				var b bytes.Buffer
				cw := &colorprofile.Writer{Forward: &b, Profile: colorProfile(env)}
				cw.WriteString(screen(m))
				golden.RequireEqual(t, b.String())
			})
		}
	}
}
