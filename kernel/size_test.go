package kernel

import "testing"

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 512: "512 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 12345: "12.1 KiB",
		2 << 20: "2 MiB", 384 << 20: "384 MiB", 2 << 30: "2 GiB", 3<<30 + 1<<29: "3.5 GiB", 5 << 40: "5 TiB",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
