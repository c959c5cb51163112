//go:build !linux

package image

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/quarry-cli/quarry/engine"
)

var errNotLinux = errors.New("the offline image build (debootstrap) runs only on Linux: build the image on a Linux host, or load debian:forky-slim into the engine so the Dockerfile path runs")

func debootstrapPreflight() error { return errNotLinux }

// buildDebootstrap needs a Linux host (debootstrap, chroot).
func buildDebootstrap(ctx context.Context, e *engine.Engine, w io.Writer, r recipe, ref string, start time.Time) error {
	return errNotLinux
}
