package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFileDuckDB(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ware.duckdb")
	os.WriteFile(good, append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07DUCK\x40\x00\x00\x00"), make([]byte, 64)...), 0o644)
	if err := CheckFile(good); err != nil {
		t.Errorf("a DuckDB file is refused: %v", err)
	}
	bad := filepath.Join(dir, "notes.duckdb")
	os.WriteFile(bad, []byte("region,amount\nNorth,1\n"), 0o644)
	if err := CheckFile(bad); err == nil || !strings.Contains(err.Error(), "not a DuckDB database") {
		t.Errorf("a CSV named .duckdb: %v", err)
	}
	// Without an extension it is told by the same header, as the kernel
	// tells it.
	bare := filepath.Join(dir, "warehouse")
	os.WriteFile(bare, append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07DUCK\x40\x00\x00\x00"), make([]byte, 64)...), 0o644)
	if err := CheckFile(bare); err != nil {
		t.Errorf("a DuckDB file without an extension is refused: %v", err)
	}
}
