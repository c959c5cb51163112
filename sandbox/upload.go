package sandbox

import (
	"io"
	"time"
)

// UploadPhase names a step of AddFile.
type UploadPhase string

const (
	UploadCopying   UploadPhase = "copying"   // the bytes go into /data
	UploadProfiling UploadPhase = "profiling" // the kernel reads the file for its profile
)

// Upload is the progress of one AddFileProgress. Copying is reported when
// it begins (Done 0), at most every uploadEvery while bytes flow, and once
// the engine has the whole file (Done == Size); then profiling begins.
type Upload struct {
	Name    string // base name, as in /data
	Phase   UploadPhase
	Done    int64         // bytes copied so far
	Size    int64         // bytes in the file
	Elapsed time.Duration // since the copy began
}

// uploadEvery spaces the copy's progress reports.
const uploadEvery = 100 * time.Millisecond

// progressReader counts the bytes read through it and reports them.
type progressReader struct {
	r      io.Reader
	up     Upload
	t0     time.Time
	last   time.Time
	report func(Upload)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.up.Done += int64(n)
	if now := time.Now(); now.Sub(p.last) >= uploadEvery && p.up.Done < p.up.Size {
		p.last = now
		p.up.Elapsed = now.Sub(p.t0)
		p.report(p.up)
	}
	return n, err
}
