//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"io"
	"time"
)

var errNotLinux = errors.New("the offline image build (debootstrap) runs only on Linux: build the image on a Linux host, or load debian:forky-slim into the engine so the Dockerfile path runs")

func debootstrapPreflight() error { return errNotLinux }

// buildDebootstrap needs a Linux host (debootstrap, chroot).
func (e *Engine) buildDebootstrap(ctx context.Context, w io.Writer, r recipe, ref string, start time.Time) error {
	return errNotLinux
}
