package filekind

import (
	"archive/zip"
	"encoding/binary"
	"io"
	"path"
	"strings"
)

// Zip and OLE files are containers: what a file is depends on the parts
// inside, which their directories list.

// zipDir is the zip's directory, read once; nil when the file is not a
// zip or its directory cannot be read (zipErr says why).
func (p *probe) zipDir() *zip.Reader {
	if p.zipDone {
		return p.zipR
	}
	p.zipDone = true
	if p.f == nil || !p.prefix(zipMagic) {
		return nil
	}
	p.zipR, p.zipErr = zip.NewReader(p.f, p.size)
	return p.zipR
}

func zipHolds(name string) func(*probe) bool {
	return func(p *probe) bool {
		z := p.zipDir()
		if z == nil {
			return false
		}
		for _, f := range z.File {
			if f.Name == name {
				return true
			}
		}
		return false
	}
}

// zipMime matches an OpenDocument file by its first part, mimetype.
func zipMime(prefix string) func(*probe) bool {
	return func(p *probe) bool {
		z := p.zipDir()
		if z == nil {
			return false
		}
		for _, f := range z.File {
			if f.Name != "mimetype" {
				continue
			}
			r, err := f.Open()
			if err != nil {
				return false
			}
			b, _ := io.ReadAll(io.LimitReader(r, 128))
			r.Close()
			return strings.HasPrefix(string(b), prefix)
		}
		return false
	}
}

// zipData is the one data file of a zip of a file, or why there is none.
func zipData(z *zip.Reader) (*zip.File, string) {
	var data []*zip.File
	for _, f := range z.File {
		name := f.Name
		if strings.HasSuffix(name, "/") || strings.HasPrefix(name, "__MACOSX/") || path.Base(name) == ".DS_Store" {
			continue
		}
		if f.Flags&1 != 0 {
			return nil, "is password-protected: unzip it with its password and attach the file inside"
		}
		data = append(data, f)
	}
	switch {
	case len(data) == 0:
		return nil, "holds no file: there is nothing to analyse"
	case len(data) > 1:
		names := make([]string, 0, 4)
		for _, f := range data[:min(len(data), 4)] {
			names = append(names, f.Name)
		}
		return nil, "holds " + itoa(len(data)) + " files (" + strings.Join(names, ", ") +
			"): quarry reads a zip with one CSV or JSON file inside; unzip it and attach the files you need"
	}
	return data[0], ""
}

// oleStreams are the names in an OLE compound file's directory (old
// Office files): Workbook for Excel, WordDocument for Word,
// EncryptedPackage for any Office file saved with a password. Bounded: a
// damaged directory yields what was read.
func (p *probe) oleStreams() []string {
	if p.oleDone {
		return p.ole
	}
	p.oleDone = true
	if p.f == nil || !p.prefix(oleMagic) || len(p.head) < 512 {
		return nil
	}
	h := p.head
	shift := binary.LittleEndian.Uint16(h[30:32])
	if shift < 9 || shift > 12 {
		return nil
	}
	sector := int64(1) << shift
	fat := p.oleFAT(h, sector)
	next := binary.LittleEndian.Uint32(h[48:52])
	buf := make([]byte, sector)
	for n := 0; n < 64 && next < 0xFFFFFFFA; n++ {
		if _, err := p.f.ReadAt(buf, (int64(next)+1)*sector); err != nil && err != io.EOF {
			break
		}
		for e := int64(0); e+128 <= sector; e += 128 {
			entry := buf[e : e+128]
			size := int(binary.LittleEndian.Uint16(entry[64:66]))
			if size < 2 || size > 64 || entry[66] == 0 {
				continue
			}
			p.ole = append(p.ole, utf16Name(entry[:size-2]))
		}
		if int(next) >= len(fat) {
			break
		}
		next = fat[next]
	}
	return p.ole
}

// oleFAT reads the sector chain table from the sectors the header lists
// (up to 109, files of up to 6.8 GB at 512-byte sectors).
func (p *probe) oleFAT(h []byte, sector int64) []uint32 {
	n := min(binary.LittleEndian.Uint32(h[44:48]), 109)
	var fat []uint32
	buf := make([]byte, sector)
	for i := uint32(0); i < n; i++ {
		s := binary.LittleEndian.Uint32(h[76+4*i : 80+4*i])
		if s >= 0xFFFFFFFA {
			break
		}
		if _, err := p.f.ReadAt(buf, (int64(s)+1)*sector); err != nil && err != io.EOF {
			break
		}
		for j := int64(0); j+4 <= sector; j += 4 {
			fat = append(fat, binary.LittleEndian.Uint32(buf[j:j+4]))
		}
	}
	return fat
}

func utf16Name(b []byte) string {
	var s strings.Builder
	for i := 0; i+1 < len(b); i += 2 {
		s.WriteRune(rune(binary.LittleEndian.Uint16(b[i:])))
	}
	return s.String()
}

func oleHolds(names ...string) func(*probe) bool {
	return func(p *probe) bool {
		for _, s := range p.oleStreams() {
			for _, n := range names {
				if strings.EqualFold(s, n) {
					return true
				}
			}
		}
		return false
	}
}

func oleHoldsPrefix(prefix string) func(*probe) bool {
	return func(p *probe) bool {
		for _, s := range p.oleStreams() {
			if strings.HasPrefix(s, prefix) {
				return true
			}
		}
		return false
	}
}

// oleHeader checks that an OLE file holds its 512-byte header and a
// directory: an Office file cut short has neither.
func oleHeader(p *probe) string {
	switch {
	case p.size < 512:
		return "is damaged or incomplete (" + itoa(int(p.size)) + " bytes, shorter than the 512-byte header of an Office file): export or download it again"
	case len(p.oleStreams()) == 0:
		return "is damaged or incomplete (the directory of its parts cannot be read): export or download it again"
	}
	return ""
}
