package filekind

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every real file of ../shared/corpus is what its name says, and stays
// that kind under any other name: no extension, one quarry does not know,
// or another kind's, each of which gives a note.
func TestIdentifyCorpus(t *testing.T) {
	csvDir, formats := corpus(t, "csv"), corpus(t, "formats")
	var truth map[string]struct {
		Kind string `json:"kind"`
	}
	b, err := os.ReadFile(filepath.Join(csvDir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	readers := map[string]string{".dta": "stata", ".sav": "spss", ".zsav": "spss", ".por": "spss",
		".sas7bdat": "sas", ".xpt": "sas", ".csv": "csv"}
	files := map[string]string{} // path -> the reader it must reach
	for name, tr := range truth {
		files[filepath.Join(csvDir, "files", name)] = tr.Kind
	}
	entries, err := os.ReadDir(formats)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if r, ok := readers[filepath.Ext(e.Name())]; ok {
			files[filepath.Join(formats, e.Name())] = r
		}
	}
	if len(files) < 65 {
		t.Fatalf("found %d corpus files, want the 60 of csv/ and the statistics files of formats/", len(files))
	}
	tmp := t.TempDir()
	for path, reader := range files {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			id := Identify(path)
			if err := id.Err(); err != nil || id.Kind.Reader != reader || id.Note() != "" {
				t.Fatalf("as %s: err %v, note %q, reader %v; want %s", base, err, id.Note(), id.Kind, reader)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmp, base)
			os.Mkdir(dir, 0o755)
			for _, other := range []string{"export", "export.bin", "export.csv", "export.parquet", "export.sqlite"} {
				got := Identify(write(t, dir, other, data))
				if err := got.Err(); err != nil || got.Kind != id.Kind && got.Kind.Reader != id.Kind.Reader {
					t.Errorf("as %s: err %v, kind %v; want %s as under its own name", other, err, got.Kind, id.Kind.Name)
					continue
				}
				note := got.Note()
				ext := filepath.Ext(other)
				switch {
				case ext == "" && note != "":
					t.Errorf("as %s: note %q, want none without an extension", other, note)
				case ext != "" && ByExt(ext) != nil && ByExt(ext).Reader == reader && note != "":
					t.Errorf("as %s: note %q, want none for a name of the same reader", other, note)
				case ext != "" && (ByExt(ext) == nil || ByExt(ext).Reader != reader) && !strings.HasPrefix(note, "named "+ext):
					t.Errorf("as %s: note %q, want it to say the name is %s", other, note, ext)
				}
			}
		})
	}
}
