package filekind

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
)

// The content rules the table's rows name, and the integrity checks run
// once a file's kind is known: each reads the probe, never the name.

// probe is what Identify knows of a file's content: its first bytes and,
// for a file (not the inside of a compressed one), the file itself for
// directories and tails.
type probe struct {
	head []byte
	size int64
	f    io.ReaderAt // nil for the unpacked inside of a compressed file

	zipR    *zip.Reader
	zipErr  error
	zipDone bool
	ole     []string
	oleDone bool
	txt     *textInfo
}

func (p *probe) prefix(s string) bool { return bytes.HasPrefix(p.head, []byte(s)) }

func (p *probe) at(m Magic) bool {
	end := m.At + len(m.Bytes)
	return len(p.head) >= end && string(p.head[m.At:end]) == m.Bytes
}

// matches tells whether the probe's content is of kind k.
func (k *Kind) matches(p *probe) bool {
	if k.match != nil {
		return k.match(p)
	}
	for _, m := range k.Magic {
		if p.at(m) {
			return true
		}
	}
	return false
}

// stata: <stata_dta> from release 117; before it a release byte (102 to
// 115), a byte order (1 or 2) and file type 1.
func stata(p *probe) bool {
	h := p.head
	return p.prefix("<stata_dta>") || len(h) > 3 && h[0] >= 102 && h[0] <= 115 && (h[1] == 1 || h[1] == 2) && h[2] == 1
}

// spssPortable: a portable file is text in its own character table; its
// tag follows a 200-byte splash and a 256-byte table, lines broken or not.
func spssPortable(p *probe) bool {
	return bytes.Contains(p.head[:min(len(p.head), 1024)], []byte("SPSSPORT"))
}

// arrowStream: the continuation marker, then the first message's length.
func arrowStream(p *probe) bool {
	if !p.prefix("\xff\xff\xff\xff") || len(p.head) < 8 {
		return false
	}
	n := binary.LittleEndian.Uint32(p.head[4:8])
	return n > 0 && n < 16<<20
}

// pickle: a protocol opcode and version, and the STOP opcode at the end.
func pickle(p *probe) bool {
	h := p.head
	if len(h) < 3 || h[0] != 0x80 || h[1] < 2 || h[1] > 5 {
		return false
	}
	last := h[len(h)-1]
	if p.f != nil && p.size > int64(len(h)) {
		b := make([]byte, 1)
		if _, err := p.f.ReadAt(b, p.size-1); err != nil {
			return false
		}
		last = b[0]
	}
	return last == '.'
}

// tail is the last n bytes of the file (fewer when it is shorter).
func (p *probe) tail(n int64) []byte {
	if p.f == nil {
		return p.head[max(0, int64(len(p.head))-n):]
	}
	off := max(p.size-n, 0)
	b := make([]byte, p.size-off)
	if _, err := p.f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil
	}
	return b
}

// parquetFooter checks the end of a Parquet file: its metadata's length
// and the closing PAR1, without which no reader can open it.
func parquetFooter(p *probe) string {
	t := p.tail(8)
	if len(t) < 8 || string(t[4:]) != "PAR1" || int64(binary.LittleEndian.Uint32(t[:4])) > p.size-12 {
		return "is damaged or incomplete (its Parquet footer is missing or broken, as when a write or copy stops early): export or download it again"
	}
	return ""
}

// arrowFooter checks that an Arrow file (Feather 2) ends with its magic.
func arrowFooter(p *probe) string {
	if p.prefix("ARROW1") && string(p.tail(6)) != "ARROW1" {
		return "is damaged or incomplete (the Arrow footer is missing): export or download it again"
	}
	return ""
}

// sqliteHeader checks that an SQLite file holds its 100-byte header.
func sqliteHeader(p *probe) string {
	if p.size < 100 {
		return "is damaged or incomplete (" + itoa(int(p.size)) + " bytes, shorter than an SQLite database's 100-byte header): export or copy it again"
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
