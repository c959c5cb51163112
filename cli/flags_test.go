package cli

import (
	"testing"
	"time"
)

// --timeout takes what quarry and what nbclient users write: a duration,
// or seconds (-1 for no limit); the rest is refused, naming the forms.
func TestTimeoutFlag(t *testing.T) {
	for in, want := range map[string]time.Duration{"90s": 90 * time.Second, "10m": 10 * time.Minute, "600": 10 * time.Minute, "2.5": 2500 * time.Millisecond, "-1": noTimeout} {
		var c cellTimeout
		if err := c.Set(in); err != nil || time.Duration(c) != want {
			t.Errorf("--timeout %s: %v %v, want %v", in, time.Duration(c), err, want)
		}
	}
	for _, in := range []string{"0", "-5", "soon", "-3s"} {
		var c cellTimeout
		if err := c.Set(in); err == nil {
			t.Errorf("--timeout %s accepted as %v", in, time.Duration(c))
		}
	}
}
