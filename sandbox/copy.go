package sandbox

import (
	"context"
	"time"
)

// CopyFile makes a host file readable at /data/<name>, like AddFileAs,
// without profiling it: for quarry's own code (the report builder), which
// knows what it reads.
func (s *Session) CopyFile(ctx context.Context, hostPath, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	_, err := s.copyIn(ctx, hostPath, name, time.Now(), func(Upload) {})
	return err
}
