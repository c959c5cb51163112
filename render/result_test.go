package render

import (
	"testing"
	"time"

	"github.com/quarry-cli/quarry/kernel"
)

func TestCellSummary(t *testing.T) {
	exc := func(typ string) *kernel.Error {
		return &kernel.Error{Kind: kernel.ErrException, Type: typ, Message: "m"}
	}
	for _, c := range []struct {
		r    *kernel.Result
		want string
	}{
		{nil, "done"},
		{&kernel.Result{Duration: 1234 * time.Millisecond}, "done in 1.2s"},
		{&kernel.Result{Duration: 300 * time.Millisecond, Error: exc("KeyError")}, "failed: KeyError in 300ms"},
		{&kernel.Result{Duration: time.Second, Error: exc("Key\x1b[31mError\n")}, "failed: KeyError  in 1.0s"},
		{&kernel.Result{Duration: time.Second, Error: exc("")}, "failed in 1.0s"},
		{&kernel.Result{Duration: 2 * time.Minute, Error: &kernel.Error{Kind: kernel.ErrTimeout}}, "timed out after 2m00s"},
		{&kernel.Result{Duration: 3 * time.Second, Error: &kernel.Error{Kind: kernel.ErrInterrupted}}, "interrupted after 3.0s"},
		{&kernel.Result{Error: &kernel.Error{Kind: kernel.ErrInterrupted}}, "interrupted"},
		{&kernel.Result{Duration: 4100 * time.Millisecond, Error: &kernel.Error{Kind: kernel.ErrOutOfMemory}}, "out of memory after 4.1s"},
		{&kernel.Result{Duration: time.Second, Error: &kernel.Error{Kind: kernel.ErrCrashed}}, "crashed after 1.0s"},
	} {
		if got := CellSummary(c.r); got != c.want {
			t.Errorf("CellSummary(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
