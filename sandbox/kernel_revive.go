package sandbox

import (
	"context"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/kernel"
)

// A kernel that dies while the current question has a checkpoint comes back
// at it (pykernel/quarry_kernel/runtime/supervisor.py): the supervisor sends a "died" frame and the
// checkpoint's copy forks a new kernel, which sends "revived". The container
// and every other checkpoint live on; only what the question made is gone.

const rewound = "; the kernel went back to where it was when this question began: variables from earlier questions are kept, those made since are gone"

// afterRevival is the result of a cell during which the kernel died and came
// back at the question's checkpoint.
func (s *Session) afterRevival(res *kernel.Result, start time.Time, why kernel.ErrorKind, status int) kernel.Result {
	res.Rewound = true
	res.Error = s.death(status, false, rewound)
	if status < 0 {
		res.Error = &kernel.Error{Kind: kernel.ErrCrashed, Message: "the kernel stopped" + rewound}
	}
	if why == kernel.ErrTimeout && res.Error.Kind == kernel.ErrCrashed {
		res.Error.Kind = kernel.ErrTimeout
	}
	res.Duration = time.Since(start)
	return *res
}

// revivedSince reports a kernel that died between requests (a thread of the
// code's, a signal) and came back at the question's checkpoint.
func (s *Session) revivedSince(k *kconn, res *kernel.Result) {
	status := -1
	for {
		select {
		case f := <-k.frames:
			switch f.T {
			case "died":
				status = f.Status
			case "revived":
				res.Rewound = true
				msg := "the kernel stopped since the last cell"
				if status >= 0 {
					cause, _, _ := strings.Cut(s.death(status, false, "").Message, ":")
					msg = "the kernel died since the last cell (" + cause + ")"
				}
				res.Notes = append(res.Notes, msg+rewound)
			}
		default:
			return
		}
	}
}

// killToCheckpoint ends a kernel stuck in a cell and brings it back at the
// question's checkpoint, when this kernel start made one: SIGUSR2 to the
// container reaches the supervisor through init (docker-init and catatonit
// forward it), and it kills the kernel. False when no kernel came back:
// the caller restarts the container.
func (s *Session) killToCheckpoint(ctx context.Context) bool {
	k := s.getK()
	if k == nil || k.dead() || len(s.ckpts) == 0 || s.ckpts[len(s.ckpts)-1].gen != s.gen {
		return false
	}
	if _, err := s.e.Client().ContainerKill(ctx, s.cid, client.ContainerKillOptions{Signal: "SIGUSR2"}); err != nil {
		return false
	}
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	for {
		select {
		case f := <-k.frames:
			if f.T == "revived" {
				return true
			}
		case <-k.done:
			return false
		case <-timer.C:
			return false
		}
	}
}
