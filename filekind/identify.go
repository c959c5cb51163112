package filekind

import (
	"archive/zip"
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/ulikunitz/xz"
)

// headSize is how much of a file (or of what it unpacks to) the rules see.
const headSize = 64 << 10

// Identity is what a file is by its name and by its content. The content
// decides: a file whose name says another kind is read as what it is when
// quarry reads that (Note says so), and refused naming both when not (Err).
type Identity struct {
	Path string // as given; messages name it

	Kind    *Kind    // what the content is (inside the packing); nil when neither text nor a kind of the table
	Packing *Packing // how the content is packed; nil when it is not
	Member  string   // a zip's one file

	Named        *Kind    // what the name says; nil when it says nothing the table knows
	NamedPacking *Packing // the packing the name says (.gz)
	Ext          string   // the name's extension, lower case; "" when it has none, or one without a letter (data.2024)

	problem string // why the file cannot be read, whatever its kind: "is damaged or incomplete (…): …"
	head    []byte
	unnamed bool // data without a name (Sniff)
}

// Identify reads the start of the file at path (and, for containers,
// their directories) and tells what it is. An error to read it is kept for
// Err, as is every reason it cannot be attached.
func Identify(path string) Identity { return identify(path, path, filepath.Base(path)) }

// IdentifyAs is Identify for the file at path as it is known by name (a
// rerun puts next quarter's file in /data under last quarter's name):
// the name decides the note, and messages name the file by name.
func IdentifyAs(path, name string) Identity { return identify(path, name, name) }

// Sniff is Identify for data that comes without a name (piped standard
// input, saved at path), called what in messages: only the content speaks.
func Sniff(path, what string) Identity { return identify(path, what, "") }

// IdentifyOpenAs is IdentifyAs for a file already open: the file read is
// the one f holds, whatever its path names now (an attach reads the file
// it checked). It moves f's offset.
func IdentifyOpenAs(f *os.File, name string) Identity {
	id := Identity{Path: name}
	id.name(name)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		id.problem = "cannot be read: " + errText(err)
		return id
	}
	id.identify(f)
	return id
}

func identify(path, what, name string) Identity {
	id := Identity{Path: what, unnamed: name == ""}
	if name != "" {
		id.name(name)
	}
	f, err := os.Open(path)
	if err != nil {
		id.problem = "cannot be read: " + errText(err)
		return id
	}
	defer f.Close()
	id.identify(f)
	return id
}

// identify reads what f holds.
func (id *Identity) identify(f *os.File) {
	st, err := f.Stat()
	if err != nil {
		id.problem = "cannot be read: " + errText(err)
		return
	}
	head, err := readHead(f)
	if err != nil {
		id.problem = "cannot be read: " + errText(err)
		return
	}
	id.head = head
	if len(head) == 0 {
		id.problem = "is empty: there is nothing to analyse; check that the export finished"
		return
	}
	p := &probe{head: head, size: st.Size(), f: f}
	id.content(p, f)
}

func readHead(r io.Reader) ([]byte, error) {
	b := make([]byte, headSize)
	n, err := io.ReadFull(r, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

// name sets what the file's name says: a packing extension, and the kind
// of the extension under it.
func (id *Identity) name(base string) {
	base = strings.ToLower(base)
	ext := filepath.Ext(base)
	if !strings.ContainsFunc(ext, unicode.IsLetter) {
		return // no extension, or digits (export.2024): nothing to go by
	}
	id.Ext = ext
	for _, pk := range Packings {
		if pk.Ext == ext {
			id.NamedPacking = pk
			inner := filepath.Ext(strings.TrimSuffix(base, ext))
			id.Named = ByExt(inner)
			if id.Named != nil {
				id.Ext = inner + ext
			}
			return
		}
	}
	id.Named = ByExt(ext)
}

// content identifies the content: a packing and what it holds, or a kind.
func (id *Identity) content(p *probe, f *os.File) {
	if p.prefix(zipEmpty) {
		id.problem = "is an empty zip archive: there is nothing to analyse"
		return
	}
	if p.prefix(zipMagic) {
		if p.zipDir() == nil {
			id.problem = "is damaged or incomplete (its zip directory is missing, as when a download or copy stops early): download or export it again"
			return
		}
		if k := id.resolve(p); k != nil && !k.text {
			id.Kind = k
			return
		}
		id.unzip(p.zipR)
		return
	}
	if pk := streamPacking(p); pk != nil {
		id.unpack(pk, f)
		return
	}
	id.Kind = id.resolve(p)
	if id.Kind != nil && id.Kind.check != nil {
		id.problem = id.Kind.check(p)
	}
	id.truncated(p)
}

// resolve is the content's kind: the first binary kind that matches, else
// among the text kinds that match the one the name says, or the one the
// delimiters suggest.
func (id *Identity) resolve(p *probe) *Kind {
	var texts []*Kind
	for _, k := range Kinds {
		if !k.matches(p) {
			continue
		}
		if !k.text {
			return k
		}
		texts = append(texts, k)
	}
	for _, k := range texts {
		if k == id.Named {
			return k
		}
	}
	for _, k := range texts {
		if len(k.Exts) > 0 && k.Exts[0] == p.text().ext {
			return k
		}
	}
	if len(texts) > 0 {
		return texts[0]
	}
	return nil
}

// truncated catches a file the name says is of a binary kind that ends
// inside that kind's signature: read as text it would be a table of noise.
func (id *Identity) truncated(p *probe) {
	n := id.Named
	if id.problem != "" || n == nil || n.text || id.Kind != nil && !id.Kind.text {
		return
	}
	for _, m := range n.Magic {
		if m.At == 0 && len(p.head) < len(m.Bytes) && strings.HasPrefix(m.Bytes, string(p.head)) {
			id.problem = fmt.Sprintf("is damaged or incomplete (%d bytes, the start of %s's signature and nothing more): export or download it again",
				len(p.head), n.Label)
			return
		}
	}
}

// unpack identifies what a gzip, bzip2 or xz file holds from the first
// bytes it unpacks to.
func (id *Identity) unpack(pk *Packing, f *os.File) {
	id.Packing = pk
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		id.problem = "cannot be read: " + errText(err)
		return
	}
	var r io.Reader
	var err error
	src := bufio.NewReader(f)
	switch pk.Name {
	case "gzip":
		r, err = gzip.NewReader(src)
	case "bz2":
		r = bzip2.NewReader(src)
	case "xz":
		r, err = xz.NewReader(src)
	}
	var head []byte
	if err == nil {
		// ReadAll keeps the decompressor's error (a stream cut short),
		// which a read of a full buffer would take for a short file.
		head, err = io.ReadAll(io.LimitReader(r, headSize))
	}
	if len(head) == 0 {
		if err != nil {
			id.problem = fmt.Sprintf("is damaged or incomplete (%s cannot unpack its start: %s): export or download it again", pk.Label, errText(err))
		} else {
			id.problem = "unpacks to nothing: there is nothing to analyse"
		}
		return
	}
	id.inner(&probe{head: head, size: int64(len(head))}, "")
}

// unzip identifies the one file of a zip that is not a document.
func (id *Identity) unzip(z *zip.Reader) {
	id.Packing = byName("zip")
	m, why := zipData(z)
	if m == nil {
		id.problem = why
		return
	}
	id.Member = m.Name
	if id.Named == nil { // q.zip: the file inside names the kind
		id.Named = ByExt(strings.ToLower(filepath.Ext(m.Name)))
	}
	r, err := m.Open()
	if err != nil {
		id.problem = fmt.Sprintf("is damaged or incomplete (%s: %s): download or export it again", m.Name, errText(err))
		return
	}
	defer r.Close()
	head, err := io.ReadAll(io.LimitReader(r, headSize))
	if len(head) == 0 {
		if err != nil {
			id.problem = fmt.Sprintf("is damaged or incomplete (%s: %s): download or export it again", m.Name, errText(err))
		} else {
			id.problem = fmt.Sprintf("holds %s, which is empty: there is nothing to analyse", m.Name)
		}
		return
	}
	id.inner(&probe{head: head, size: int64(len(head))}, m.Name)
}

// inner sets the kind of a packed file's content. Only text is read
// packed; anything else must be unpacked first.
func (id *Identity) inner(p *probe, member string) {
	what := id.Packing.Label + "-compressed"
	if member != "" {
		what = member + " in the zip"
	}
	if p.prefix(zipMagic) || p.prefix(zipEmpty) {
		id.problem = fmt.Sprintf("holds a zip archive or an Office document (%s): unpack it and attach the file inside", what)
		return
	}
	if pk := streamPacking(p); pk != nil {
		id.problem = fmt.Sprintf("is packed twice (%s, then %s): unpack it and attach the file inside", id.Packing.Label, pk.Label)
		return
	}
	id.Kind = id.resolve(p)
}

// streamPacking is the gzip, bzip2 or xz packing the content starts with.
func streamPacking(p *probe) *Packing {
	for _, pk := range Packings {
		if pk.Name != "zip" && p.prefix(pk.Magic) {
			return pk
		}
	}
	return nil
}

func byName(name string) *Packing {
	for _, pk := range Packings {
		if pk.Name == name {
			return pk
		}
	}
	return nil
}

// ByExt is the kind an extension (".csv", lower case) names, or nil.
func ByExt(ext string) *Kind {
	for _, k := range Kinds {
		for _, e := range k.Exts {
			if e == ext {
				return k
			}
		}
	}
	return nil
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
