package session

import (
	"strings"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

func TestUploadLines(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	feed := func(ups ...sandbox.Upload) string {
		var b strings.Builder
		u := newUploadLines(func(line string) { b.WriteString(line + "\n") })
		u.now = func() time.Time { return clock }
		u.start = clock
		for _, up := range ups {
			clock = clock.Add(up.Elapsed - (clock.Sub(u.start)))
			u.report(up)
		}
		return b.String()
	}
	big := int64(1_600_000_000)
	at := func(phase sandbox.UploadPhase, done int64, ms int) sandbox.Upload {
		return sandbox.Upload{Name: "ledger.csv", Phase: phase, Done: done, Size: big, Elapsed: time.Duration(ms) * time.Millisecond}
	}
	got := feed(at(sandbox.UploadCopying, 0, 0), at(sandbox.UploadCopying, 100e6, 300),
		at(sandbox.UploadCopying, 400e6, 1100), at(sandbox.UploadCopying, 500e6, 1500),
		at(sandbox.UploadCopying, 800e6, 2200), at(sandbox.UploadCopying, big, 4000), at(sandbox.UploadProfiling, big, 4000))
	want := "copying ledger.csv into the sandbox: 381.5 MiB of 1.5 GiB (25%)\n" +
		"copying ledger.csv into the sandbox: 762.9 MiB of 1.5 GiB (50%)\n" +
		"copied ledger.csv (1.5 GiB) in 4s, 381.5 MiB/s\n" +
		"profiling ledger.csv\n"
	if got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	small := func(phase sandbox.UploadPhase, done int64, ms int) sandbox.Upload {
		return sandbox.Upload{Name: "q1.csv", Phase: phase, Done: done, Size: 2048, Elapsed: time.Duration(ms) * time.Millisecond}
	}
	if got := feed(small(sandbox.UploadCopying, 0, 0), small(sandbox.UploadCopying, 2048, 40), small(sandbox.UploadProfiling, 2048, 40)); got != "" {
		t.Errorf("a quick upload printed %q", got)
	}
}
