package session

import "time"

// StateLost: the sandbox's container or the engine went away while the
// session was idle; the next cell rebuilds it (rebuild.go).
const StateLost State = "lost"

// lostCheck is how often an idle session looks at its kernel's stream
// besides waking when it ends: no engine call is made either way.
var lostCheck = time.Second

// watchSandbox runs while the session is open: when the kernel's stream
// ends between operations (the container was killed, the engine stopped
// or restarted), the state becomes StateLost, so no front end goes on
// saying the sandbox is ready.
func (s *Session) watchSandbox() {
	tick := time.NewTicker(lostCheck)
	defer tick.Stop()
	for {
		s.mu.Lock()
		sb := s.sb
		s.mu.Unlock()
		var gone <-chan struct{}
		if sb != nil && sb.Alive() {
			gone = sb.Gone()
		}
		select {
		case <-s.watch:
			return
		case <-gone:
		case <-tick.C:
		}
		s.noticeLoss()
	}
}

// noticeLoss marks an idle session whose sandbox is gone; an operation in
// progress finds out for itself.
func (s *Session) noticeLoss() {
	s.mu.Lock()
	st, sb := s.state, s.sb
	s.mu.Unlock()
	if st != StateReady || sb == nil || sb.Alive() {
		return
	}
	select {
	case s.op <- struct{}{}:
	default:
		return
	}
	defer func() { <-s.op }()
	s.mu.Lock()
	st, same := s.state, s.sb == sb
	s.mu.Unlock()
	if st == StateReady && same && !sb.Alive() {
		s.setState(StateLost, nil)
	}
}
