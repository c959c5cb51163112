package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/agent/openaitest"
	"github.com/quarry-cli/quarry/hosttest"
	"github.com/quarry-cli/quarry/source/mariadbtest"
)

// /sources in the chat, with a MariaDB connected by --db and a SQLite file
// attached: both listed by the name sql(db=) takes, the server with its
// version and user@host/db, the file with its tables and size; the file's
// chip shows a database, not its largest table; no password on screen, at
// 120 columns and at 40.
func TestChatSlashSources(t *testing.T) {
	requireChat(t)
	py := hosttest.Python(t)
	my := mariadbtest.Start(t)
	my.CreateDB(t, "shop")
	dir := t.TempDir()
	db := filepath.Join(dir, "chinook.db")
	script := `import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.executescript("""CREATE TABLE albums (id INTEGER, title TEXT, artist INTEGER);
CREATE TABLE artists (id INTEGER, name TEXT);
CREATE TABLE playlist_track (playlist INTEGER, track INTEGER);""")
con.executemany("INSERT INTO albums VALUES (?, ?, ?)", [(i, "album %d" % i, i % 7) for i in range(347)])
con.executemany("INSERT INTO artists VALUES (?, ?)", [(i, "artist %d" % i) for i in range(275)])
con.executemany("INSERT INTO playlist_track VALUES (?, ?)", [(i % 18, i) for i in range(8715)])
con.commit()`
	if out, err := exec.Command(py, "-c", script, db).CombinedOutput(); err != nil {
		t.Fatalf("making the SQLite file: %v: %s", err, out)
	}
	model := openaitest.New(t)
	p := startChatArgs(t, dir, model.URL, []string{"--output-dir", filepath.Join(dir, "out"), "--db", "shop=" + my.URL("shop"), db})
	p.waitFor("the database file's chip", 3*time.Minute, matches(`chinook\.db 3 tables · \d+ KiB`))
	p.typeLine("/sources")
	s := p.waitFor("/sources", time.Minute, has(`db="shop": MariaDB 10.`, `db="chinook": SQLite file chinook.db, 3 tables`))
	for _, want := range []string{my.User + "@" + my.Socket + "/shop", "albums 347 × 3", "artists 275 × 2", "playlist_track 8,715 × 2"} {
		if !strings.Contains(strings.ReplaceAll(s, "\u00a0", " "), want) {
			t.Errorf("/sources lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "No database") || strings.Contains(s, "8,715 × 2 ·") {
		t.Errorf("/sources or the chip reads the file as a table:\n%s", s)
	}
	p.resize(40, 30)
	p.typeLine("/sources")
	p.waitFor("/sources at 40 columns", time.Minute, has(`db="chinook": SQLite`, "3 tables"))
	if h := p.history(); strings.Contains(h, my.Password) {
		t.Fatalf("the password is on screen:\n%s", h)
	}
	p.keys("C-c")
	p.keys("C-c")
	if code := p.waitExit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.screen())
	}
}
