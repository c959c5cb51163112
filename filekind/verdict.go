package filekind

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Err says why the file cannot be attached, naming the file and what to
// do; nil when quarry reads it.
func (id Identity) Err() error {
	p := id.Path
	switch {
	case id.problem != "":
		return fmt.Errorf("%s: %s", p, id.problem)
	case id.Kind == nil:
		start := fmt.Sprintf("it starts with the bytes % x", id.head[:min(len(id.head), 8)])
		switch {
		case id.Named != nil && id.Named.Reader != "":
			return fmt.Errorf("%s is not %s: its content is binary, of no kind quarry knows (%s): check the export, or export it again as CSV", p, id.Named.Label, start)
		case id.unnamed:
			return fmt.Errorf("%s: binary data of an unknown kind (%s): if it is a table, export it as CSV, Excel or Parquet and pass that", p, start)
		case id.Ext == "":
			return fmt.Errorf("%s: has no extension and its content is binary, of no kind quarry knows (%s): if it is a table, export it as CSV", p, start)
		}
		return fmt.Errorf("%s: unsupported file (type %s): its content is binary, of no kind quarry knows (%s); quarry reads %s, and other files by their content: export it as CSV or Excel",
			p, id.Ext, start, strings.Join(Extensions(), " "))
	case id.Packing != nil && !id.Kind.Packed:
		inside := id.Kind.Label
		if id.Member != "" {
			return fmt.Errorf("%s: holds %s (%s), which quarry reads only unpacked: unzip it and attach that file", p, id.Member, inside)
		}
		return fmt.Errorf("%s: holds %s compressed with %s, which quarry reads only unpacked: unpack it and attach the %s",
			p, inside, id.Packing.Label, strings.TrimPrefix(strings.TrimPrefix(inside, "an "), "a "))
	case id.Kind.Reader != "":
		return nil
	}
	what := id.what()
	switch {
	case id.Named == id.Kind:
		return fmt.Errorf("%s is %s, which quarry does not read (it reads %s): %s", p, what, Formats(), id.Kind.Fix)
	case id.Named != nil:
		return fmt.Errorf("%s is %s, not %s: %s", p, what, id.Named.Label, id.Kind.Fix)
	case id.unnamed:
		return fmt.Errorf("%s is %s, not data quarry reads: %s", p, what, id.Kind.Fix)
	case id.Ext == "":
		return fmt.Errorf("%s has no extension and is %s, not data quarry reads: %s", p, what, id.Kind.Fix)
	}
	return fmt.Errorf("%s is %s, not data quarry reads: %s", p, what, id.Kind.Fix)
}

// what is what the file holds in words: "a CSV file compressed with gzip".
func (id Identity) what() string {
	s := id.Kind.Label
	if id.Packing != nil {
		s += " compressed with " + id.Packing.Label
	}
	return s
}

// Note says how the name and the content disagree, for a file quarry
// reads by its content ("named .csv, but it is an SQLite database"); ""
// when they agree, or the name says nothing.
func (id Identity) Note() string {
	if id.Ext == "" || id.Err() != nil {
		return ""
	}
	named := id.Named != nil || id.NamedPacking != nil
	switch {
	case !named:
		return fmt.Sprintf("named %s, a kind quarry does not know: read by its content, %s", id.Ext, id.what())
	case id.Named != nil && id.Named.Reader != id.Kind.Reader:
		return fmt.Sprintf("named %s, but it is %s", id.Ext, id.what())
	case id.NamedPacking == id.Packing:
		return ""
	case id.Packing == nil && !id.Kind.Packed:
		return fmt.Sprintf("named %s, but it is %s", id.Ext, id.Kind.Label)
	case id.Packing == nil:
		return fmt.Sprintf("named %s, but it is not compressed: %s", id.Ext, id.Kind.Label)
	}
	return fmt.Sprintf("named %s, but it is compressed with %s", id.Ext, id.Packing.Label)
}

// Request is a file's row as the kernel's profile request carries it.
type Request struct {
	Name        string   `json:"name"`
	Reader      string   `json:"reader"`
	Reads       []string `json:"reads,omitempty"`
	Compression string   `json:"compression,omitempty"` // pandas' compression= name
	// CompressionNamed: the name's extension says the packing, so pandas
	// unpacks it without compression=.
	CompressionNamed bool `json:"compression_named,omitempty"`
}

// Request is what the kernel needs to profile the file; call it only when
// Err is nil.
func (id Identity) Request() Request {
	r := Request{Name: id.Kind.Name, Reader: id.Kind.Reader}
	for _, rd := range id.Kind.Reads {
		r.Reads = append(r.Reads, rd.Func)
	}
	if id.Packing != nil {
		r.Compression = id.Packing.Name
		r.CompressionNamed = id.NamedPacking == id.Packing
	}
	return r
}

// DataExt is the extension a file of this content is named with: ".tsv",
// ".csv.gz"; call it only when Err is nil.
func (id Identity) DataExt() string {
	ext := id.Kind.Exts[0]
	if id.Packing != nil && id.Packing.Name != "zip" {
		ext += id.Packing.Ext
	} else if id.Packing != nil {
		ext = ".zip"
	}
	return ext
}

// DataName reports whether a file's name says a kind quarry reads (or a
// packing of one), or nothing at all: no extension, or one of digits.
func DataName(path string) bool {
	var id Identity
	id.name(filepath.Base(path))
	return id.Ext == "" || id.NamedPacking != nil || id.Named != nil && id.Named.Reader != ""
}

// Extensions are the extensions of every kind quarry reads, and of the
// packings a text file may come in.
func Extensions() []string {
	var out []string
	for _, k := range Kinds {
		if k.Reader != "" {
			out = append(out, k.Exts...)
		}
	}
	for _, pk := range Packings {
		out = append(out, pk.Ext)
	}
	return out
}

// Formats names the kinds quarry reads for a list: "CSV, TSV, …".
func Formats() string {
	var names []string
	for _, k := range Kinds {
		if k.Reader != "" && k.Short != "" {
			names = append(names, k.Short)
		}
	}
	return strings.Join(names, ", ")
}

// ReadSuffix is what follows a read call of fn (e.g. "[0]" after
// pyreadstat's, which return the DataFrame and its metadata), and whether
// fn is a read call of the table at all.
func ReadSuffix(fn string) (string, bool) {
	for _, k := range Kinds {
		for _, r := range k.Reads {
			if r.Func == fn {
				return r.Suffix, true
			}
		}
	}
	return "", false
}

// ReadFunctions are the names (without a module) of the functions code
// reads a file of a known kind with: read_csv, ExcelFile, read_pickle…
func ReadFunctions() map[string]bool {
	out := map[string]bool{}
	for _, k := range Kinds {
		for _, r := range k.Reads {
			out[r.Func[strings.LastIndexByte(r.Func, '.')+1:]] = true
		}
		for _, c := range k.Calls {
			out[c] = true
		}
	}
	return out
}
