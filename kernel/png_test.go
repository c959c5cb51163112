package kernel

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// A saved figure is read back only as the harvest checked it.
func TestReadPNG(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "cell1-1.png")
	os.WriteFile(good, b.Bytes(), 0o644)
	if data, err := ReadPNG(good); err != nil || !bytes.Equal(data, b.Bytes()) {
		t.Fatalf("a valid figure: %d bytes, %v", len(data), err)
	}
	swapped := filepath.Join(dir, "cell1-2.png")
	os.WriteFile(swapped, []byte("<svg onload=alert(1)>"), 0o644)
	big := filepath.Join(dir, "cell1-3.png")
	os.WriteFile(big, append(append([]byte{}, b.Bytes()...), make([]byte, MaxPNGBytes)...), 0o644)
	for _, p := range []string{"", filepath.Join(dir, "gone.png"), swapped, big} {
		if data, err := ReadPNG(p); err == nil || data != nil {
			t.Errorf("ReadPNG(%q) = %d bytes, %v; want an error and no bytes", p, len(data), err)
		}
	}
}
