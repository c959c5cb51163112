package export

import (
	"encoding/json"
	"io"
	"testing"
)

// BenchmarkExport50Cells exports a session of 10 questions with 5 cells
// each (tables, figures, a failure per question) in each format; the
// baseline is encoding the loaded record to JSON, the least any export
// must do.
func BenchmarkExport50Cells(b *testing.B) {
	dir := writeRecord(b, 10, 5)
	rec := loadRecord(b, dir)
	b.Run("baseline-json", func(b *testing.B) {
		for b.Loop() {
			if err := json.NewEncoder(io.Discard).Encode(rec.Turns()); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, f := range []Format{Notebook, Markdown, HTML} {
		b.Run(string(f), func(b *testing.B) {
			for b.Loop() {
				if err := Render(io.Discard, rec, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("load+html", func(b *testing.B) {
		for b.Loop() {
			if err := Render(io.Discard, loadRecord(b, dir), HTML); err != nil {
				b.Fatal(err)
			}
		}
	})
}
