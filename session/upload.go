package session

import (
	"fmt"
	"time"

	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// uploadLines turns an upload's progress into progress lines, which both
// front ends show (the chat's status bar, headless's status line or
// stderr). Files that copy in under a second say nothing.
type uploadLines struct {
	emit  func(string)
	now   func() time.Time
	start time.Time
	last  time.Time
	shown bool // a line was written for this upload
}

// uploadQuiet is how long a copy runs before its progress is shown, and
// then how often.
const uploadQuiet = time.Second

func newUploadLines(emit func(string)) *uploadLines {
	u := &uploadLines{emit: emit, now: time.Now}
	u.start = u.now()
	return u
}

func (u *uploadLines) report(up sandbox.Upload) {
	now := u.now()
	switch {
	case up.Phase == sandbox.UploadCopying && up.Done < up.Size:
		if now.Sub(u.start) < uploadQuiet || now.Sub(u.last) < uploadQuiet {
			return
		}
		u.last, u.shown = now, true
		u.emit(fmt.Sprintf("copying %s into the sandbox: %s of %s (%d%%)",
			up.Name, kernel.FormatSize(up.Done), kernel.FormatSize(up.Size), up.Done*100/max(up.Size, 1)))
	case up.Phase == sandbox.UploadCopying:
		if !u.shown && up.Elapsed < uploadQuiet {
			return
		}
		u.shown = true
		u.emit(fmt.Sprintf("copied %s (%s) in %s, %s/s", up.Name, kernel.FormatSize(up.Size),
			up.Elapsed.Round(100*time.Millisecond), kernel.FormatSize(int64(float64(up.Size)/max(up.Elapsed.Seconds(), 0.001)))))
	case up.Phase == sandbox.UploadProfiling && u.shown:
		u.emit("profiling " + up.Name)
	}
}
