package export

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/quarry-cli/quarry/kernel"
)

// What comes back from the sandbox is checked before it is kept: the
// builder is quarry's own code, but it runs on untrusted data, and a
// workbook or a PDF is opened by people who trust it. A workbook holds
// only the parts openpyxl writes for cells, styles and pictures: no
// formula, macro, external link, connection or embedded object. A PDF has
// no script, action, link or embedded file.

const (
	maxWorkbookParts = 5000
	maxWorkbookBytes = 8 << 30 // unpacked: a million rows of wide text stays under it
)

var workbookParts = regexp.MustCompile(`^(\[Content_Types\]\.xml|_rels/\.rels|docProps/(app|core)\.xml|` +
	`xl/(workbook|styles|sharedStrings)\.xml|xl/_rels/workbook\.xml\.rels|xl/theme/theme[0-9]+\.xml|` +
	`xl/worksheets/sheet[0-9]+\.xml|xl/worksheets/_rels/sheet[0-9]+\.xml\.rels|` +
	`xl/drawings/drawing[0-9]+\.xml|xl/drawings/_rels/drawing[0-9]+\.xml\.rels|xl/media/image[0-9]+\.png)$`)

// refused are the byte strings a part may not hold: a formula (<f>), a
// target outside the file, macros and embedded objects by content type,
// defined names other than the filter ranges.
var refused = map[string][][]byte{
	"sheet":   {[]byte("<f>"), []byte("<f "), []byte("<f/"), []byte(":f>"), []byte(":f "), []byte("<oleObjects"), []byte("<controls")},
	"rels":    {[]byte("External")},
	"types":   {[]byte("vbaProject"), []byte("macroEnabled"), []byte("oleObject"), []byte("activeX"), []byte("externalLink")},
	"drawing": {[]byte("External"), []byte("<xdr:graphicFrame")},
}

var (
	definedName = regexp.MustCompile(`<definedName [^>]*name="([^"]*)"`)
	mediaPart   = regexp.MustCompile(`^xl/media/`)
	relsPart    = regexp.MustCompile(`\.rels$`)
	drawingPart = regexp.MustCompile(`^xl/drawings/`)
	sheetPart   = regexp.MustCompile(`^xl/worksheets/`)
)

func checkBuilt(f Format, path string) error {
	switch f {
	case Workbook:
		return CheckWorkbook(path)
	case PDF:
		return CheckPDF(path)
	}
	return fmt.Errorf("%s is not a built format", f)
}

// CheckWorkbook tells whether the file at path is a workbook as quarry
// writes them (see above); the error names what is wrong.
func CheckWorkbook(path string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("not a workbook: %w", err)
	}
	defer z.Close()
	if len(z.File) > maxWorkbookParts {
		return fmt.Errorf("%d parts: more than a report has", len(z.File))
	}
	var total uint64
	seen := map[string]bool{}
	for _, zf := range z.File {
		if !workbookParts.MatchString(zf.Name) {
			return fmt.Errorf("part %q is not one of a report's", zf.Name)
		}
		if seen[zf.Name] {
			return fmt.Errorf("part %q twice", zf.Name)
		}
		seen[zf.Name] = true
		if total += zf.UncompressedSize64; total > maxWorkbookBytes {
			return errors.New("larger unpacked than a report can be")
		}
		if err := checkPart(zf); err != nil {
			return fmt.Errorf("part %s: %w", zf.Name, err)
		}
	}
	for _, need := range []string{"[Content_Types].xml", "xl/workbook.xml"} {
		if !seen[need] {
			return fmt.Errorf("no %s: not a workbook", need)
		}
	}
	return nil
}

func checkPart(zf *zip.File) error {
	r, err := zf.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	lr := io.LimitReader(r, int64(zf.UncompressedSize64)+1)
	name := zf.Name
	switch {
	case name == "xl/workbook.xml":
		b, err := io.ReadAll(io.LimitReader(lr, 16<<20))
		if err != nil {
			return err
		}
		for _, m := range definedName.FindAllSubmatch(b, -1) {
			if n := string(m[1]); n != "_xlnm._FilterDatabase" && n != "_xlnm.Print_Titles" && n != "_xlnm.Print_Area" {
				return fmt.Errorf("defined name %q", m[1])
			}
		}
		return scan(bytes.NewReader(b), refused["sheet"])
	case mediaPart.MatchString(name):
		b, err := io.ReadAll(io.LimitReader(lr, kernel.MaxPNGBytes+1))
		if err != nil {
			return err
		}
		_, _, err = kernel.CheckPNG(b)
		return err
	case name == "[Content_Types].xml":
		return scan(lr, refused["types"])
	case relsPart.MatchString(name):
		return scan(lr, refused["rels"])
	case drawingPart.MatchString(name):
		return scan(lr, refused["drawing"])
	case sheetPart.MatchString(name):
		return scan(lr, refused["sheet"])
	}
	return nil
}

// scan reads r in pieces and fails on the first of bad it finds, also
// across a piece's end.
func scan(r io.Reader, bad [][]byte) error {
	longest := 0
	for _, b := range bad {
		longest = max(longest, len(b))
	}
	br := bufio.NewReaderSize(r, 1<<20)
	buf := make([]byte, 0, (1<<20)+longest)
	for {
		chunk := make([]byte, 1<<20)
		n, err := io.ReadFull(br, chunk)
		buf = append(buf, chunk[:n]...)
		for _, b := range bad {
			if bytes.Contains(buf, b) {
				return fmt.Errorf("holds %q", b)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		keep := min(len(buf), longest-1)
		buf = append(buf[:0], buf[len(buf)-keep:]...)
	}
}

// pdfRefused are the names of what a PDF can run, open, fetch or carry.
var pdfRefused = regexp.MustCompile(`/(JavaScript|JS|Launch|EmbeddedFile|EmbeddedFiles|OpenAction|AA|URI|SubmitForm|ImportData|RichMedia|ObjStm|XFA|GoToR|GoToE)[\s/\[\]<>()]`)

// maxPDF is the largest PDF the check reads.
const maxPDF = 1 << 30

// CheckPDF tells whether the file at path is a PDF as quarry writes them:
// text, pictures and fonts, no script, action, link or attachment (and no
// object streams, where such names could hide compressed). Stream data
// (page contents, fonts, pictures) is skipped: its bytes are not names.
func CheckPDF(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() > maxPDF {
		return errors.New("larger than a report can be")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(b, []byte("%PDF-1.")) {
		return errors.New("not a PDF")
	}
	if !bytes.Contains(b[max(0, len(b)-1024):], []byte("%%EOF")) {
		return errors.New("a PDF cut short (no %%EOF at its end)")
	}
	for len(b) > 0 {
		i := streamStart(b)
		if m := pdfRefused.Find(b[:i]); m != nil {
			return fmt.Errorf("holds %s", bytes.TrimRight(m, " \t\r\n/[]<>()"))
		}
		if i == len(b) {
			return nil
		}
		end := bytes.Index(b[i:], []byte("endstream"))
		if end < 0 {
			return errors.New("a stream without its end")
		}
		b = b[i+end+len("endstream"):]
	}
	return nil
}

// streamStart is where the data of the next stream begins (after the
// keyword's end of line), or len(b).
func streamStart(b []byte) int {
	at := 0
	for {
		k := bytes.Index(b[at:], []byte("stream"))
		if k < 0 {
			return len(b)
		}
		k += at
		rest := b[k+len("stream"):]
		ends := k > 0 && bytes.HasSuffix(b[:k], []byte("end"))
		switch {
		case !ends && bytes.HasPrefix(rest, []byte("\r\n")):
			return k + len("stream") + 2
		case !ends && bytes.HasPrefix(rest, []byte("\n")):
			return k + len("stream") + 1
		}
		at = k + len("stream")
	}
}
