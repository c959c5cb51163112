package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
)

// Limits on figures, the same for the harvest (which refuses a figure over
// them) and the renderer (which decodes only what passes): checked from the
// PNG header before any pixel is decoded, so a PNG declaring 100000×100000
// pixels costs nothing.
const (
	MaxPNGBytes = 32 << 20
	MaxPNGSide  = 10000
	MaxPNGArea  = 40_000_000
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// CheckPNG verifies a PNG's signature, its header and the limits, and
// returns its dimensions. data may be the whole file or its first bytes
// (the header is at the start); no pixel is decoded.
func CheckPNG(data []byte) (w, h int, err error) {
	if len(data) > MaxPNGBytes {
		return 0, 0, fmt.Errorf("png: %s is over the %s limit", FormatSize(int64(len(data))), FormatSize(MaxPNGBytes))
	}
	if !bytes.HasPrefix(data, pngSignature) {
		return 0, 0, errors.New("png: not a PNG file (bad signature)")
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("png header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, fmt.Errorf("png: empty image %d×%d", cfg.Width, cfg.Height)
	}
	if cfg.Width > MaxPNGSide || cfg.Height > MaxPNGSide || cfg.Width*cfg.Height > MaxPNGArea {
		return 0, 0, fmt.Errorf("png: %d×%d pixels is over the limit (cap: %d per side, %d in all)",
			cfg.Width, cfg.Height, MaxPNGSide, MaxPNGArea)
	}
	return cfg.Width, cfg.Height, nil
}

// ReadPNG reads a figure back from the session folder and checks it as the
// harvest did, for a reader of a saved session (resume, export): a file
// changed or replaced since is refused, never drawn or embedded.
func ReadPNG(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("png: the figure has no path in the session folder")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPNGBytes+1))
	if err != nil {
		return nil, err
	}
	if _, _, err := CheckPNG(data); err != nil {
		return nil, err
	}
	return data, nil
}
