package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarry-cli/quarry/hosttest"
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
	code, err := layoutCode([]RerunInput{{Name: "sales.csv", Rel: "data/sales.csv"}, {Name: "q1.csv"}}, nil)
	if err != nil || !strings.Contains(code, `[["data/sales.csv","/data/sales.csv"]]`) {
		t.Fatalf("%q %v", code, err)
	}
	for _, rel := range []string{"../x", "/etc/passwd", "a/../../x", "a//b", "."} {
		if _, err := layoutCode([]RerunInput{{Name: "x", Rel: rel}}, nil); err == nil {
			t.Errorf("%s: accepted", rel)
		}
	}
	for _, rel := range []string{"../x", "/tmp", "."} {
		if _, err := layoutCode(nil, []string{rel}); err == nil {
			t.Errorf("folder %s: accepted", rel)
		}
	}
	if code, _ := layoutCode([]RerunInput{{Name: "q1.csv"}}, nil); code != "" {
		t.Errorf("no layout without relative paths: %q", code)
	}
}

// Run by Python in a working folder, the layout links each input at its
// path, makes the folders the notebook's code writes into, and leaves no
// name behind in the namespace the cells run in.
func TestLayoutCodeMakesTheFoldersWrittenInto(t *testing.T) {
	py := hosttest.Tool(t, "python3")
	work, data := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(data, "sales.csv"), []byte("a\n1\n"), 0o644)
	code, err := layoutCode([]RerunInput{{Name: "sales.csv", Rel: "examples/sales.csv"}}, []string{"results/q3", "examples"})
	if err != nil {
		t.Fatal(err)
	}
	code = strings.ReplaceAll(code, "/data/", data+"/")
	script := code + "\nleft = sorted(n for n in dir() if not n.startswith('__'))\nassert left == [], left\n"
	cmd := exec.Command(py, "-c", script)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, code)
	}
	if st, err := os.Stat(filepath.Join(work, "results", "q3")); err != nil || !st.IsDir() {
		t.Errorf("results/q3 not made: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(work, "examples", "sales.csv")); err != nil || string(b) != "a\n1\n" {
		t.Errorf("examples/sales.csv: %q %v", b, err)
	}
}
