package notebook

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Any file inside the notebook's folder that the code names is an input at
// its relative path, whatever opens it and whatever its name; a folder the
// code names brings its files; an absolute path inside the folder becomes
// the relative one; a file outside is read only when the user names it.
func TestNotebookInputsAsJupyterFindsThem(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	for _, f := range []string{"data/access_log", "data/shop.sqlite", "notes.txt", "raw/a.csv", "raw/b.csv", "raw/.hidden"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("x y\n1 2\n"), 0o644)
	}
	os.WriteFile(filepath.Join(other, "ref.txt"), []byte("ref\n"), 0o644)
	code := strings.NewReplacer("ABS", filepath.Join(dir, "notes.txt"), "OUT", filepath.Join(other, "ref.txt")).Replace(
		"log = pd.read_csv('data/access_log', sep=' ')\ncon = sqlite3.connect(\"./data/shop.sqlite\")\n" +
			"text = open('ABS').read()\nraw = [pd.read_csv(os.path.join('raw', n)) for n in ('a.csv', 'b.csv')]\n" +
			"ref = open('OUT').read()\nlog.to_csv('clean.csv')\nprint('data/access_log is read')")
	nb := &RerunNotebook{Dir: dir}
	got, err := newInputScan(dir, nb).cell(1, code)
	if err != nil {
		t.Fatal(err)
	}
	rels := map[string]NotebookInput{}
	for _, in := range nb.Inputs {
		rels[in.Rel+"|"+in.Name] = in
	}
	for _, want := range []string{"data/access_log|access_log", "data/shop.sqlite|shop.sqlite", "notes.txt|notes.txt", "raw/a.csv|a.csv", "raw/b.csv|b.csv", "|ref.txt"} {
		if _, ok := rels[want]; !ok {
			t.Errorf("input %s missing: %+v", want, nb.Inputs)
		}
	}
	if len(nb.Inputs) != 6 {
		t.Errorf("%d inputs, want 6 (no hidden file, nothing the code writes): %+v", len(nb.Inputs), nb.Inputs)
	}
	if in := rels["|ref.txt"]; in.Path != "" || in.Named != filepath.Join(other, "ref.txt") {
		t.Errorf("the file outside the folder: %+v, want it named for the user to confirm", in)
	}
	for _, want := range []string{"open('notes.txt')", "open('/data/ref.txt')", "pd.read_csv('data/access_log', sep=' ')", "log.to_csv('clean.csv')"} {
		if !strings.Contains(got, want) {
			t.Errorf("code lacks %s:\n%s", want, got)
		}
	}
}

// A shell line names its files without quotes: the words that are paths to
// files inside the folder (or patterns matching them) are inputs; words
// that name nothing there, options, URLs and paths outside are not.
func TestNotebookInputsOfShellLines(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	for _, f := range []string{"data/ex1.csv", "data/ex2.csv", "data/notes.txt", "logs/app.log", "README.md", "big/0.csv"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("a,b\n1,2\n"), 0o644)
	}
	for i := 1; i <= maxFolderFiles; i++ {
		os.WriteFile(filepath.Join(dir, "big", fmt.Sprintf("%d.csv", i)), []byte("x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(other, "secret.csv"), []byte("k\n"), 0o644)
	code := "!cat data/ex1.csv\n!head -n 2 README.md   # see data/notes.txt\nx = !wc -l data/*.csv\n" +
		"%%bash\nls logs/ big/\n!cat --file=" + filepath.Join(other, "secret.csv") + " ../" + filepath.Base(other) + "/secret.csv\ndf.to_csv('out.csv'); np.nan; http://x/data.csv"
	nb := &RerunNotebook{Dir: dir}
	if _, err := newInputScan(dir, nb).cell(1, code); err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, in := range nb.Inputs {
		rels = append(rels, in.Rel)
	}
	sort.Strings(rels)
	if got, want := strings.Join(rels, " "), "README.md data/ex1.csv data/ex2.csv logs/app.log"; got != want {
		t.Errorf("inputs %s, want %s", got, want)
	}
}
