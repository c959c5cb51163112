package render

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/quarry-cli/quarry/kernel"
)

// DecodePNG checks the PNG against the figure limits (kernel.CheckPNG, the
// harvest's own) and only then decodes it.
func DecodePNG(data []byte) (image.Image, error) {
	if _, _, err := kernel.CheckPNG(data); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("png decode: %w", err)
	}
	return img, nil
}
