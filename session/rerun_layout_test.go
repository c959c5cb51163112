package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A notebook's file is checked as the attach path checks it when its name
// says data or nothing; any other name is the code's business.
func TestCheckNotebookInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	for _, c := range []struct {
		path, want string
	}{
		{write("access_log", []byte("10.0.0.1 200 5120\n")), ""},
		{write("notes.md", []byte("# notes\n")), ""},
		{write("model.bin2", []byte{0, 1, 2, 3}), ""},
		{write("blob", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 3, 0, 0}), "has no extension"},
		{write("sales.csv", nil), "is empty"},
		{filepath.Join(dir, "gone.txt"), "no such file"},
		{filepath.Join(dir, "gone.log"), "no such file"},
	} {
		err := CheckNotebookInput(c.path)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// The links are made only at paths inside the working folder.
func TestLayoutCode(t *testing.T) {
	code, err := layoutCode([]RerunInput{{Name: "sales.csv", Rel: "data/sales.csv"}, {Name: "q1.csv"}})
	if err != nil || !strings.Contains(code, `[["data/sales.csv","/data/sales.csv"]]`) {
		t.Fatalf("%q %v", code, err)
	}
	for _, rel := range []string{"../x", "/etc/passwd", "a/../../x", "a//b", "."} {
		if _, err := layoutCode([]RerunInput{{Name: "x", Rel: rel}}); err == nil {
			t.Errorf("%s: accepted", rel)
		}
	}
	if code, _ := layoutCode([]RerunInput{{Name: "q1.csv"}}); code != "" {
		t.Errorf("no layout without relative paths: %q", code)
	}
}
