package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/filekind"
)

func TestCheckFileDuckDB(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ware.duckdb")
	os.WriteFile(good, append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07DUCK\x40\x00\x00\x00"), make([]byte, 64)...), 0o644)
	if err := CheckFile(good); err != nil {
		t.Errorf("a DuckDB file is refused: %v", err)
	}
	// A CSV named .duckdb is read as the CSV it is, and the note says so.
	csv := filepath.Join(dir, "notes.duckdb")
	os.WriteFile(csv, []byte("region,amount\nNorth,1\n"), 0o644)
	if err := CheckFile(csv); err != nil {
		t.Errorf("a CSV named .duckdb is refused: %v", err)
	}
	if note := filekind.Identify(csv).Note(); !strings.Contains(note, "named .duckdb, but it is a CSV file") {
		t.Errorf("a CSV named .duckdb: note %q", note)
	}
	// Without an extension it is told by the same header, as the kernel
	// tells it.
	bare := filepath.Join(dir, "warehouse")
	os.WriteFile(bare, append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07DUCK\x40\x00\x00\x00"), make([]byte, 64)...), 0o644)
	if err := CheckFile(bare); err != nil {
		t.Errorf("a DuckDB file without an extension is refused: %v", err)
	}
}
