package notebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/session"
)

// A notebook to rerun: one quarry exported (its first cell sets DATA_DIR,
// its metadata names the inputs and their columns) or one written by hand
// in Jupyter (its inputs are the files its code names: notebook_inputs.go).
// Either way only code cells run, in order; a cell Jupyter marks as
// expected to raise (tag raises-exception, as quarry marks its failed
// cells) is left out, and one tagged skip-execution (which nbclient skips)
// is left out and named. IPython's syntax is the kernel's to run or refuse
// (pykernel/quarry_kernel/ipython/syntax.py): a rerun asks it before any cell runs.

// RerunNotebook is what a rerun of a notebook needs.
type RerunNotebook struct {
	Path   string
	Dir    string // the notebook's folder, absolute: the code's working folder in Jupyter
	Quarry bool   // exported by quarry
	Turns  []session.Turn
	Inputs []NotebookInput
	// Folders are the folders inside the notebook's (relative, with
	// slashes) that its code writes into: the sandbox's working folder
	// gets them, as the code finds them there in Jupyter.
	Folders []string
	// Stored are the outputs the notebook holds, one for each cell of
	// Turns in order: what a rerun's outputs are compared with.
	Stored []StoredOutputs
	// Skipped are the code cells left out because they are tagged so.
	Skipped []Skipped
	Text    string // the Markdown cells, joined (capped): what the notebook says
}

// Skipped is a code cell a rerun leaves out, and why.
type Skipped struct {
	Num int    // the notebook's code cell
	Why string // "tagged skip-execution"
}

// maxNotebookText caps RerunNotebook.Text.
const maxNotebookText = 16 << 10

// NotebookInput is a file the notebook's code reads.
type NotebookInput struct {
	Name string // under /data in the sandbox
	// Path is the host file by default, always inside the notebook's
	// folder; "" when the notebook names one outside it (Named), which is
	// read only when the user names it too.
	Path  string
	Named string
	// Rel is where the code finds the file, relative to its working folder
	// (the notebook's in Jupyter, /output in the sandbox); "" for a file
	// the code reads at /data/<Name>.
	Rel     string
	Profile *kernel.Profile // the columns the session saw (quarry's notebooks only)
	// Cell is the code cell that reads it first (0 when not known): the
	// one that fails, as in Jupyter, when the file is missing.
	Cell int
}

type nbFile struct {
	NBFormat int `json:"nbformat"`
	Metadata struct {
		Quarry *struct {
			Inputs []struct {
				Name    string `json:"name"`
				Path    string `json:"path"`
				Columns []struct {
					Name  string `json:"name"`
					Dtype string `json:"dtype"`
				} `json:"columns"`
			} `json:"inputs"`
		} `json:"quarry"`
	} `json:"metadata"`
}

// readNBCell is one cell as read, its strings cut (notebook_stream.go).
type readNBCell struct {
	ID       string          `json:"id"`
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
	Metadata struct {
		Tags   []string `json:"tags"`
		Quarry struct {
			Role string `json:"role"`
		} `json:"quarry"`
	} `json:"metadata"`
	ExecutionCount *int           `json:"execution_count"`
	Outputs        []storedOutput `json:"outputs"`
}

// ReadNotebook reads a notebook for a rerun. Its errors name the file and,
// for a cell quarry cannot run, the cell.
func ReadNotebook(path string) (*RerunNotebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	var nb nbFile
	type readCell struct {
		readNBCell
		src    string
		stored StoredOutputs
	}
	var cells []readCell
	var cellErr error // a cell quarry does not read, in a notebook that parses
	err = walkNotebook(f, &nb, func(c readNBCell) error {
		src, err := cellSource(c.Source)
		if err != nil {
			return fmt.Errorf("cell %s: %v", c.ID, err)
		}
		if strings.Contains(src, cutMark) && cellErr == nil {
			cellErr = fmt.Errorf("%s: cell %s has a line of over %s: quarry does not read such code", path, c.ID, kernel.FormatSize(maxJSONString))
		}
		rc := readCell{readNBCell: c, src: src}
		if c.CellType == "code" {
			rc.stored = storedOutputs(c)
		}
		rc.Outputs, rc.Source = nil, nil // what is kept of them is in stored
		cells = append(cells, rc)
		return nil
	})
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = errors.New("it ends early")
		}
		return nil, fmt.Errorf("%s is not a Jupyter notebook (%v): save it from Jupyter as .ipynb", path, err)
	}
	if cellErr != nil {
		return nil, cellErr
	}
	if nb.NBFormat != 4 {
		return nil, fmt.Errorf("%s is nbformat %d: quarry reruns nbformat 4 notebooks; open and save it in a current Jupyter first", path, nb.NBFormat)
	}
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	out := &RerunNotebook{Path: path, Dir: dir, Quarry: nb.Metadata.Quarry != nil}
	if q := nb.Metadata.Quarry; q != nil {
		for _, in := range q.Inputs {
			if checkName(in.Name) != nil {
				return nil, fmt.Errorf("%s: its metadata names an input %q that is not a file name", path, in.Name)
			}
			ni := NotebookInput{Name: in.Name}
			switch beside := filepath.Join(dir, in.Name); {
			case exists(beside) || in.Path == "":
				ni.Path = beside
			default:
				ni.Path = in.Path // where the session had it
			}
			ni = ni.confined(dir)
			if len(in.Columns) > 0 {
				p := &kernel.Profile{Name: in.Name}
				for _, c := range in.Columns {
					p.Columns = append(p.Columns, kernel.Column{Name: c.Name, Dtype: c.Dtype})
				}
				ni.Profile = p
			}
			out.Inputs = append(out.Inputs, ni)
		}
	}
	var cur *session.Turn
	scan := newInputScan(dir, out)
	code := 0
	for _, c := range cells {
		src := c.src
		switch c.CellType {
		case "markdown":
			if len(out.Text) < maxNotebookText {
				out.Text = clip(out.Text+strings.TrimSpace(src)+"\n\n", maxNotebookText)
			}
			if c.Metadata.Quarry.Role == "question" {
				out.Turns = append(out.Turns, session.Turn{Question: questionText(src)})
				cur = &out.Turns[len(out.Turns)-1]
			}
			continue
		case "code":
		default:
			continue
		}
		code++
		if c.Metadata.Quarry.Role == "setup" || hasTag(c.Metadata.Tags, SetupID) {
			// The sandbox's folders, where quarry's setup cell names this folder.
			src = "DATA_DIR = '/data/'\nOUTPUT_DIR = '/output/'"
		}
		if hasTag(c.Metadata.Tags, "raises-exception") {
			continue
		}
		if hasTag(c.Metadata.Tags, "skip-execution") {
			out.Skipped = append(out.Skipped, Skipped{Num: code, Why: "tagged skip-execution"})
			continue
		}
		if !out.Quarry {
			if src, err = scan.cell(code, src); err != nil {
				return nil, fmt.Errorf("%s: code cell %d: %v", path, code, err)
			}
		}
		if cur == nil {
			out.Turns = append(out.Turns, session.Turn{})
			cur = &out.Turns[len(out.Turns)-1]
		}
		cur.Cells = append(cur.Cells, session.Cell{Num: code, Code: src, Status: session.CellOK})
		out.Stored = append(out.Stored, c.stored)
	}
	if code == 0 {
		return nil, fmt.Errorf("%s has no code cells: there is nothing to rerun", path)
	}
	return out, nil
}

// confined keeps the default file only when it lies in dir, the notebook's
// folder, links resolved: a notebook from elsewhere must not pick host
// files (a credentials .json, another project's data) to carry into the
// sandbox and its report. Any other becomes Named, for the user to confirm.
func (in NotebookInput) confined(dir string) NotebookInput {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p) // missing: nothing is read, the check says so
	}
	if !inside(real(dir), real(in.Path)) {
		in.Named, in.Path = in.Path, ""
	}
	return in
}

func cellSource(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", errors.New("its source is neither a string nor a list of lines")
	}
	return strings.Join(lines, ""), nil
}

// questionText undoes questionMarkdown.
func questionText(src string) string {
	src = strings.TrimPrefix(src, "**You asked:**\n\n")
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
	}
	return strings.NewReplacer(`\<`, "<", "&lt;", "<", `\![`, "![").Replace(strings.Join(lines, "\n")) // &lt; as older exports wrote it
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

// checkName refuses what cannot be one file in /data.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00\n\r") {
		return errors.New("not a file name")
	}
	return nil
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// SetupID marks the cell of a quarry notebook that defines the folders
// (export writes it, a rerun leaves it out).
const SetupID = "quarry-setup"

func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
