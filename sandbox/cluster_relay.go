package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/pykernel"
)

// The relay's frames, both ways: a kind byte, a connection id and a length
// (4 bytes each, big-endian), then the data. The relay (cluster/relay.py)
// opens a connection with O when the kernel's client connects; D carries
// bytes; C closes; R (relay to host only) says it listens, its id field
// holding its pid.
const (
	relayOpen  = 'O'
	relayData  = 'D'
	relayClose = 'C'
	relayReady = 'R'

	relayMaxData  = 1 << 20 // the relay sends at most 64 KiB; more is a forged frame
	relayMaxConns = 32      // the client keeps a few; more is the sandbox asking the host for sockets
	relayChunk    = 64 << 10
	relayStart    = 20 * time.Second
	relayDial     = 10 * time.Second
)

var relaySource = pykernel.Source(pykernel.Program("relay")[0])

// relay is one relay process in the sandbox and the host's ends of its
// connections, each opened to the one Cluster it was given.
type relay struct {
	hj      client.HijackedResponse
	cluster Cluster
	pid     int
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}

	writeMu sync.Mutex
	mu      sync.Mutex
	links   map[uint32]*relayLink
}

// relayLink is one connection: bytes from the sandbox queue in ch until
// the dial is done, so their order holds.
type relayLink struct {
	ch   chan []byte
	once sync.Once
}

func (l *relayLink) close() { l.once.Do(func() { close(l.ch) }) }

func startRelay(ctx context.Context, e *engine.Engine, cid string, c Cluster) (*relay, error) {
	ex, err := e.Client().ExecCreate(ctx, cid, client.ExecCreateOptions{
		User: sandboxUID, AttachStdin: true, AttachStdout: true, AttachStderr: true,
		Cmd: []string{"python3", "-I", "-c", relaySource, strconv.Itoa(relayPort)},
	})
	if err != nil {
		return nil, fmt.Errorf("exec create: %w", err)
	}
	hj, err := e.Client().ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("exec attach: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &relay{hj: hj.HijackedResponse, cluster: c, ctx: rctx, cancel: cancel, done: make(chan struct{}), links: map[uint32]*relayLink{}}
	pr, pw := io.Pipe()
	var stderr engine.LimitedBuffer
	stderr.Max = maxStartError
	go func() {
		_, err := stdcopy.StdCopy(pw, &stderr, r.hj.Reader)
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	ready := make(chan int, 1)
	go r.read(pr, ready)
	t := time.NewTimer(relayStart)
	defer t.Stop()
	select {
	case r.pid = <-ready:
		return r, nil
	case <-r.done:
		r.Close()
		return nil, fmt.Errorf("the relay exited before it listened: %s", engine.LastLines(stderr.String(), 4))
	case <-t.C:
		r.Close()
		return nil, fmt.Errorf("the relay did not listen in %s", relayStart)
	case <-ctx.Done():
		r.Close()
		return nil, ctx.Err()
	}
}

// read serves the relay's frames until its stream ends or a frame is bad.
func (r *relay) read(rd io.Reader, ready chan<- int) {
	defer r.Close()
	defer close(r.done)
	var hdr [9]byte
	for {
		if _, err := io.ReadFull(rd, hdr[:]); err != nil {
			return
		}
		kind, id, n := hdr[0], binary.BigEndian.Uint32(hdr[1:5]), binary.BigEndian.Uint32(hdr[5:9])
		if n > relayMaxData {
			return
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(rd, data); err != nil {
			return
		}
		switch kind {
		case relayReady:
			select {
			case ready <- int(id):
			default:
			}
		case relayOpen:
			r.open(id)
		case relayData:
			r.mu.Lock()
			l := r.links[id]
			r.mu.Unlock()
			if l != nil && n > 0 {
				select {
				case l.ch <- data:
				case <-r.ctx.Done():
					return
				}
			}
		case relayClose:
			r.mu.Lock()
			l := r.links[id]
			delete(r.links, id)
			r.mu.Unlock()
			if l != nil {
				l.close()
			}
		default:
			return // not the relay's protocol: end it
		}
	}
}

func (r *relay) open(id uint32) {
	r.mu.Lock()
	if _, dup := r.links[id]; dup || len(r.links) >= relayMaxConns {
		r.mu.Unlock()
		r.send(relayClose, id, nil)
		return
	}
	l := &relayLink{ch: make(chan []byte, 256)}
	r.links[id] = l
	r.mu.Unlock()
	go r.serve(id, l)
}

// serve dials the cluster for one connection and copies both ways.
func (r *relay) serve(id uint32, l *relayLink) {
	dctx, cancel := context.WithTimeout(r.ctx, relayDial)
	conn, err := r.cluster.Dial(dctx)
	cancel()
	if err != nil {
		r.drop(id, l)
		return
	}
	go func() {
		buf := make([]byte, relayChunk)
		for {
			n, err := conn.Read(buf)
			if n > 0 && r.send(relayData, id, buf[:n]) != nil {
				break
			}
			if err != nil {
				break
			}
		}
		conn.Close()
		r.drop(id, l)
	}()
	for {
		select {
		case b, ok := <-l.ch:
			if !ok {
				conn.Close()
				return
			}
			if _, err := conn.Write(b); err != nil {
				conn.Close()
				r.drop(id, l)
				return
			}
		case <-r.ctx.Done():
			conn.Close()
			return
		}
	}
}

// drop ends a connection from the host's side and tells the relay, unless
// the relay ended it first.
func (r *relay) drop(id uint32, l *relayLink) {
	r.mu.Lock()
	cur, ok := r.links[id]
	if ok && cur == l {
		delete(r.links, id)
	}
	r.mu.Unlock()
	if ok && cur == l {
		l.close()
		r.send(relayClose, id, nil)
	}
}

func (r *relay) send(kind byte, id uint32, data []byte) error {
	var hdr [9]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:5], id)
	binary.BigEndian.PutUint32(hdr[5:9], uint32(len(data)))
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if _, err := r.hj.Conn.Write(hdr[:]); err != nil {
		return err
	}
	if len(data) > 0 {
		if _, err := r.hj.Conn.Write(data); err != nil {
			return err
		}
	}
	return nil
}

func (r *relay) dead() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// Close ends the relay's stream and every connection it carried; the
// process in the sandbox exits when its input closes.
func (r *relay) Close() {
	r.cancel()
	r.hj.Close()
	r.mu.Lock()
	for id, l := range r.links {
		l.close()
		delete(r.links, id)
	}
	r.mu.Unlock()
}
