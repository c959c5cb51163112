package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/sandbox/sandboxtest"
)

// A start interrupted right after each of its requests to the engine went
// out (the volumes' and the container's creates, the attach, the start,
// the kernel's wait): whichever it was, nothing of the session is left.
func TestStartInterruptedAfterEachRequestLeavesNothing(t *testing.T) {
	e := sandboxtest.Engine(t)
	for n := 1; ; n++ {
		id := fmt.Sprintf("intr-%d-%d", time.Now().UnixNano(), n)
		ctx, cancel := context.WithCancel(context.Background())
		var sent atomic.Int32
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
			if sent.Add(1) == int32(n) {
				cancel()
			}
		}})
		s, err := sandbox.Start(ctx, e, sandbox.Options{SessionID: id, OutputDir: filepath.Join(t.TempDir(), "out")})
		cancel()
		if err == nil {
			s.Close()
			if n < 4 {
				t.Fatalf("a start made only %d requests", n-1)
			}
			t.Logf("a start makes %d requests; each was cut once", n-1)
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("start cut after request %d: %v, want context.Canceled", n, err)
		}
		c, v, err := sandbox.SessionObjects(context.Background(), e, id)
		if err != nil {
			t.Fatal(err)
		}
		if left := sandbox.SessionVolumesLeft(context.Background(), e, id); c != 0 || v != 0 || len(left) != 0 {
			t.Errorf("start cut after request %d left %d containers, %d volumes (%v)", n, c, v, left)
			sandbox.RemoveSession(context.Background(), e, id)
		}
	}
}
