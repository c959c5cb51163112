package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
)

// Limits on figures: checked from the PNG header before any pixel is
// decoded, so a PNG declaring 100000×100000 pixels costs nothing.
const (
	MaxPNGBytes = 32 << 20
	MaxPNGSide  = 10000
	MaxPNGArea  = 40_000_000
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// CheckPNG verifies the PNG signature and header and the size caps, and
// returns the dimensions. It decodes no pixels.
func CheckPNG(data []byte) (w, h int, err error) {
	if len(data) > MaxPNGBytes {
		return 0, 0, fmt.Errorf("png: %d bytes is over the %d MB limit", len(data), MaxPNGBytes>>20)
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
		return 0, 0, fmt.Errorf("png: %d×%d pixels is over the limit (%d per side, %d in all)",
			cfg.Width, cfg.Height, MaxPNGSide, MaxPNGArea)
	}
	return cfg.Width, cfg.Height, nil
}

// DecodePNG checks the PNG (CheckPNG) and only then decodes it.
func DecodePNG(data []byte) (image.Image, error) {
	if _, _, err := CheckPNG(data); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("png decode: %w", err)
	}
	return img, nil
}

// LoadPNG reads a harvested figure from the host — a regular file, at most
// MaxPNGBytes — and checks it.
func LoadPNG(path string) (data []byte, w, h int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("figure: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("figure: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, 0, fmt.Errorf("figure %s: not a regular file", SanitizeLine(path))
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxPNGBytes+1))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("figure: %w", err)
	}
	w, h, err = CheckPNG(data)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("figure %s: %w", SanitizeLine(path), err)
	}
	return data, w, h, nil
}
