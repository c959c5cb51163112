package notebook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeNotebook writes a notebook of the code cells given into dir.
func writeNotebook(t *testing.T, dir string, cells ...string) string {
	t.Helper()
	type cell struct {
		CellType string         `json:"cell_type"`
		Source   string         `json:"source"`
		Metadata map[string]any `json:"metadata"`
		Outputs  []any          `json:"outputs"`
		Count    *int           `json:"execution_count"`
	}
	nb := map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{}}
	var cs []cell
	for _, c := range cells {
		cs = append(cs, cell{CellType: "code", Source: c, Metadata: map[string]any{}, Outputs: []any{}})
	}
	nb["cells"] = cs
	b, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "nb.ipynb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func inputRels(nb *RerunNotebook) string {
	var rels []string
	for _, in := range nb.Inputs {
		rels = append(rels, in.Rel)
	}
	sort.Strings(rels)
	return strings.Join(rels, " ")
}

// A path an earlier cell writes is the code's own file when a later cell
// reads it, for every way code writes a file; also when a copy from an
// earlier run lies in the folder (Jupyter overwrites it before the read).
func TestNotebookFilesItWritesAreNoInputs(t *testing.T) {
	for _, c := range []struct{ name, write, read string }{
		{"to_csv", `df.to_csv("out/t.csv", index=False)`, `pd.read_csv("out/t.csv")`},
		{"to_pickle", `frame.to_pickle("examples/frame_pickle")`, `pd.read_pickle("examples/frame_pickle")`},
		{"to_parquet keyword", `df.to_parquet(path="t.parquet")`, `pd.read_parquet("t.parquet")`},
		{"to_excel", `df.to_excel('t.xlsx', sheet_name="s")`, `pd.read_excel('t.xlsx')`},
		{"ExcelWriter", "with pd.ExcelWriter('book.xlsx') as w:\n    df.to_excel(w)", `pd.read_excel('book.xlsx')`},
		{"open w", "with open('notes.txt', 'w') as f:\n    f.write('x')", `print(open('notes.txt').read())`},
		{"open mode keyword", `open("log.txt", mode="a").write("x")`, `open("log.txt").read()`},
		{"Path.write_text", `Path("p.txt").write_text("x")`, `Path("p.txt").read_text()`},
		{"savefig", `plt.savefig("fig.png")`, `open("fig.png", "rb").read()`},
		{"np.save", `np.save("arr.npy", a)`, `np.load("arr.npy")`},
		{"shutil.copy", `shutil.copy(src, "copy.csv")`, `pd.read_csv("copy.csv")`},
		{"shell redirect", `!echo a,b > shell.csv`, `pd.read_csv("shell.csv")`},
		{"shell append glued", `!echo 1,2 >>shell2.csv`, `!cat shell2.csv`},
		{"shell cp", `!cp -f base.csv copied.csv`, `pd.read_csv('copied.csv')`},
		{"shell mv", `!mv base.csv moved.csv`, `pd.read_csv('moved.csv')`},
		{"shell capture", `x = !ls > listing.txt`, `open('listing.txt').read()`},
		{"bash cell", "%%bash\ncd . && sort base.csv | uniq > sorted.csv", `pd.read_csv("sorted.csv")`},
		{"writefile", "%%writefile -a script.csv\na,b\n1,2", `pd.read_csv("script.csv")`},
		{"absolute path inside", `df.to_csv("ABS/abs.csv")`, `pd.read_csv("ABS/abs.csv")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			os.MkdirAll(filepath.Join(dir, "examples"), 0o755)
			os.WriteFile(filepath.Join(dir, "base.csv"), []byte("a,b\n1,2\n"), 0o644)
			// a leftover of an earlier run: the code writes it before it reads it
			for _, f := range []string{"out/t.csv", "examples/frame_pickle", "t.xlsx", "notes.txt", "shell.csv", "copied.csv", "abs.csv"} {
				os.WriteFile(filepath.Join(dir, f), []byte("a,b\n1,2\n"), 0o644)
			}
			abs := func(s string) string { return strings.ReplaceAll(s, "ABS", dir) }
			p := writeNotebook(t, dir, "import pandas as pd\ndf = pd.read_csv('base.csv')", abs(c.write), "!rm -f whatever.tmp", abs(c.read))
			nb, err := ReadNotebook(p)
			if err != nil {
				t.Fatal(err)
			}
			want := "base.csv"
			if got := inputRels(nb); got != want {
				t.Errorf("inputs %q, want %q: a file the notebook writes is no input", got, want)
			}
		})
	}
}

// A read before the write, in the same cell or an earlier one, reads the
// file as it was: an input. A write in a cell that never runs (tagged
// raises-exception) makes nothing.
func TestNotebookReadBeforeItsWriteIsAnInput(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sales.csv", "cache.csv"} {
		os.WriteFile(filepath.Join(dir, f), []byte("a,b\n1,2\n"), 0o644)
	}
	p := writeNotebook(t, dir, "df = pd.read_csv('sales.csv')\ndf.to_csv('sales.csv')", "c = pd.read_csv('cache.csv')", "c.to_csv('cache.csv')")
	nb, err := ReadNotebook(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inputRels(nb), "cache.csv sales.csv"; got != want {
		t.Errorf("inputs %q, want %q", got, want)
	}
	for _, in := range nb.Inputs {
		if want := map[string]int{"sales.csv": 1, "cache.csv": 2}[in.Rel]; in.Cell != want {
			t.Errorf("%s: first read in cell %d, want %d", in.Rel, in.Cell, want)
		}
	}
}

// The folders the code writes into that exist in the notebook's folder are
// made in the sandbox's working folder, as Jupyter finds them; a folder
// the code makes itself, or that does not exist, is not.
func TestNotebookFoldersItWritesInto(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "results", "q3"), 0o755)
	p := writeNotebook(t, dir, "df.to_csv('results/q3/v.csv')\nplt.savefig('figs/a.png')\nos.makedirs('made', exist_ok=True)")
	nb, err := ReadNotebook(p)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(nb.Folders)
	if got, want := strings.Join(nb.Folders, " "), "results/q3"; got != want {
		t.Errorf("folders %q, want %q", got, want)
	}
}

func TestShellWrites(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"!sort a.csv > b.csv 2>/dev/null", "b.csv /dev/null"},
		{"!ls 2>&1 | tee log.txt", "log.txt"},
		{"!mkdir -p out/x && touch out/x/done", "out/x out/x/done"},
		{"!curl -s -o page.html http://h/x", "page.html"},
		{"!head a.csv  # > not.csv", ""},
		{"x = 1 > 0", ""},
		{"%%writefile f.py\nprint(1)", "f.py"},
	} {
		var got []string
		for _, w := range shellWrites(c.src) {
			got = append(got, w.path)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("shellWrites(%q) = %q, want %q", c.src, g, c.want)
		}
	}
}
