package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/quarry-cli/quarry/filekind"
	"github.com/quarry-cli/quarry/kernel"
)

// profileLimits lower the kernel's sampling threshold (bytes above which a
// CSV is profiled from its first rows) and sample size; zero keeps the
// kernel's defaults (64 MB, 200,000 rows). Tests set them to sample small files.
var profileLimits struct{ fullBytes, sampleRows atomic.Int64 }

// profile asks the kernel to profile a file in /data with the reader of its
// kind. It runs in the kernel's own namespace, not the user's, and is
// bounded like a cell.
func (s *Session) profile(ctx context.Context, path string, kind filekind.Request) (kernel.Profile, error) {
	var res kernel.Result
	if err := s.ensureKernel(ctx, &res); err != nil {
		return kernel.Profile{}, err
	}
	k := s.getK()
	s.seq++
	id := s.seq
	k.want.Store(id)
	defer k.want.Store(0)
	fallback := kernel.Profile{Name: path[len(dataDir)+1:], Path: path, HeaderRow: -1, Kind: kind.Reader}
	if !slices.Contains(s.info.Readers, kind.Reader) {
		fallback.Error = "the kernel has no profile reader for " + kind.Name + " files (it has " + strings.Join(s.info.Readers, ", ") + ")"
		return fallback, nil
	}
	limits := map[string]int64{"memory_limit": s.lim.Memory}
	if b, r := profileLimits.fullBytes.Load(), profileLimits.sampleRows.Load(); b > 0 || r > 0 {
		limits["full_bytes"], limits["sample_rows"] = b, r
	}
	msg := map[string]any{"op": "profile", "id": id, "path": path, "limits": limits, "kind": kind}
	if err := k.send(msg); err != nil {
		return fallback, s.engineError(err)
	}
	clock := newOpClock(s.opts.Timeout)
	defer clock.stop()
	for {
		select {
		case f := <-k.frames:
			if f.T == "running" {
				clock.begin()
				continue
			}
			if f.T == "revived" {
				fallback.Error = "profiling stopped the kernel" + rewound
				return fallback, nil
			}
			if f.T != "profile" {
				continue
			}
			if f.Profile == nil {
				fallback.Error = "the kernel returned no profile"
				return fallback, nil
			}
			p := *f.Profile
			p.Name, p.Path, p.Kind = fallback.Name, path, kind.Reader // the host knows these; the kernel's copy is untrusted
			boundProfile(&p)
			return p, nil
		case <-k.done:
			// Profiling is not the user's code: replace the kernel, keep the file.
			var r kernel.Result
			if _, err := s.afterDeath(&r, time.Now(), ""); err != nil {
				return fallback, err
			}
			fallback.Error = "profiling stopped the kernel (" + r.Error.Message + ")"
			return fallback, nil
		case <-clock.timer.C:
			return s.abandonProfile(k, id, fallback, fmt.Sprintf("profiling took longer than %s", s.opts.Timeout))
		case <-ctx.Done():
			return s.abandonProfile(k, id, fallback, "profiling cancelled")
		}
	}
}

// abandonProfile interrupts a profile that runs too long; if the kernel
// does not come back within the grace it is replaced.
func (s *Session) abandonProfile(k *kconn, id int64, p kernel.Profile, why string) (kernel.Profile, error) {
	k.send(map[string]any{"op": "interrupt", "id": id})
	grace := time.NewTimer(interruptGrace)
	defer grace.Stop()
	for {
		select {
		case f := <-k.frames:
			if f.T == "profile" {
				p.Error = why
				return p, nil
			}
			continue
		case <-k.done:
		case <-grace.C:
		}
		break
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := s.restartKernel(ctx); err != nil {
		return p, s.engineError(fmt.Errorf("kernel restart: %w", err))
	}
	p.Error = why + "; the kernel was restarted and earlier variables are lost"
	return p, nil
}

// boundProfile caps the free text the kernel reports (it reaches the model's
// prompt): separators are a few bytes, notes few and short, read calls
// short (kernel.ReadCall.Python refuses anything but literals).
func boundProfile(p *kernel.Profile) {
	for _, f := range []*string{&p.Encoding, &p.Delimiter, &p.Decimal, &p.Thousands, &p.Compression} {
		if len(*f) > 16 {
			*f = ""
		}
	}
	p.Notes = boundNotes(p.Notes)
	p.EncodingSample = clipText(p.EncodingSample, maxSample)
	p.Read = boundCall(p.Read)
	const maxSheets = 50
	if len(p.Sheets) > maxSheets {
		p.Sheets = p.Sheets[:maxSheets]
	}
	for i := range p.Sheets {
		sh := &p.Sheets[i]
		sh.Notes = boundNotes(sh.Notes)
		sh.Read = boundCall(sh.Read)
		if sh.State != "hidden" && sh.State != "very hidden" {
			sh.State = ""
		}
	}
	for i := range p.Columns {
		if len(p.Columns[i].DateFormat) > 32 {
			p.Columns[i].DateFormat = ""
		}
	}
}

func boundCall(c *kernel.ReadCall) *kernel.ReadCall {
	if c == nil || len(c.Args) > 24 || c.Python("/data/x") == "" {
		return nil
	}
	return c
}

func boundNotes(notes []string) []string {
	const maxNotes, maxLen = 8, 400
	if len(notes) > maxNotes {
		notes = notes[:maxNotes]
	}
	for i, n := range notes {
		notes[i] = clipText(n, maxLen)
	}
	return notes
}

// maxSample bounds the encoding sample, which the prompt carries.
const maxSample = 240

// clipText cuts s to at most n bytes on a character boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
