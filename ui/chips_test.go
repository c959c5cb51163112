package ui

import (
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/kernel"
)

// A very wide file's chip gives its true column count.
func TestChipWideFile(t *testing.T) {
	p := &kernel.Profile{Size: 3 << 20, Rows: 5, Columns: make([]kernel.Column, 200), ColumnCount: 300000}
	if got := (chip{name: "matrix.csv", profile: p}).label(); !strings.Contains(got, "5 × 300000") {
		t.Errorf("label %q", got)
	}
}
