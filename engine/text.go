package engine

import (
	"strings"
	"sync"
)

// LimitedBuffer keeps the first Max bytes written and discards the rest:
// what a helper process (ssh, the kernel) says on stderr, kept for an error
// message without growing without bound.
type LimitedBuffer struct {
	mu  sync.Mutex
	Max int
	b   []byte
}

func (l *LimitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.Max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *LimitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// LastLines joins the last n lines of s on one line, for an error message.
func LastLines(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
