package sandbox_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// recordingScheduler stands in for a Dask scheduler: a listener on the
// host's loopback that keeps every byte it is sent. It is the Cluster's
// only address, so whatever a cell sends through the relay ends here.
type recordingScheduler struct {
	ln    net.Listener
	dials atomic.Int32
	mu    sync.Mutex
	got   bytes.Buffer
}

func newRecordingScheduler(t *testing.T) *recordingScheduler {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recordingScheduler{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					r.mu.Lock()
					r.got.Write(buf[:n])
					r.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return r
}

func (r *recordingScheduler) Dial(ctx context.Context) (net.Conn, error) {
	r.dials.Add(1)
	var d net.Dialer
	return d.DialContext(ctx, "tcp", r.ln.Addr().String())
}
func (r *recordingScheduler) Name() string     { return "tcp://" + r.ln.Addr().String() }
func (r *recordingScheduler) MaxResult() int64 { return 1 << 20 }

func (r *recordingScheduler) received() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got.String()
}

// The relay is the sandbox's one way out, and it goes to the configured
// scheduler only: the sandbox keeps only lo, no other port or address
// answers, and bytes that name another address (a proxy request, a
// forged relay frame written to the relay's own output) arrive at the
// scheduler as bytes: nothing in the sandbox chooses where they go.
func TestRelayReachesOnlyTheConfiguredScheduler(t *testing.T) {
	sched := newRecordingScheduler(t)
	s, _ := advSession(t, sandbox.Options{Cluster: sched})
	if info, ok := s.ClusterInfo(); !ok || info.Error == "" {
		t.Fatalf("a listener that speaks no Dask was taken for a scheduler: %+v", info)
	}
	var got struct {
		Ifaces   []string `json:"ifaces"`
		Relay    string   `json:"relay"`
		Others   []string `json:"others"`
		Outside  []string `json:"outside"`
		Forged   string   `json:"forged"`
		RelayPID int      `json:"relay_pid"`
	}
	res := runJSON(t, s, `
import json, os, socket, struct
out = {'ifaces': sorted(os.listdir('/sys/class/net')), 'others': [], 'outside': []}
c = socket.create_connection(('127.0.0.1', 8786), timeout=5)
c.sendall(b'CONNECT 203.0.113.7:443 HTTP/1.1\r\nHost: 203.0.113.7\r\n\r\nRELAY-MARK-1')
c.close()
out['relay'] = 'sent'
for port in (22, 80, 2375, 5432, 8787, 8788):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        out['others'].append('%d open' % port)
    except OSError as e:
        pass
gw = None
try:
    for line in open('/proc/net/route').read().splitlines()[1:]:
        f = line.split()
        if f[1] == '00000000':
            gw = socket.inet_ntoa(struct.pack('<I', int(f[2], 16)))
except OSError:
    pass
for host in [h for h in (gw, '172.17.0.1', '10.0.2.2', '192.168.1.1') if h]:
    try:
        socket.create_connection((host, 8786), timeout=1).close()
        out['outside'].append(host)
    except OSError:
        pass
# The relay is a process of the sandbox's user: write a frame of its
# protocol straight to its output, naming another address in the data.
pid = 0
for n in os.listdir('/proc'):
    try:
        if n.isdigit() and b'RELAY_PORT' in open('/proc/%s/cmdline' % n, 'rb').read():
            pid = int(n)
    except OSError:
        pass
out['relay_pid'] = pid
try:
    fd = os.open('/proc/%d/fd/1' % pid, os.O_WRONLY)
    data = b'GET http://198.51.100.9/ HTTP/1.1\r\n\r\nRELAY-MARK-2'
    os.write(fd, struct.pack('>cII', b'O', 9999, 0))
    os.write(fd, struct.pack('>cII', b'D', 9999, len(data)) + data)
    os.close(fd)
    out['forged'] = 'written'
except OSError as e:
    out['forged'] = 'refused: %s' % e.strerror
print('QJSON ' + json.dumps(out))
`, &got)
	mustOK(t, res)
	if strings.Join(got.Ifaces, ",") != "lo" {
		t.Errorf("the sandbox has interfaces %v with the relay up; want lo only", got.Ifaces)
	}
	if len(got.Others) > 0 {
		t.Errorf("other loopback ports answer in the sandbox: %v", got.Others)
	}
	if len(got.Outside) > 0 {
		t.Errorf("the sandbox reached %v", got.Outside)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(sched.received(), "RELAY-MARK-1") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(sched.received(), "CONNECT 203.0.113.7:443") {
		t.Errorf("a proxy request through the relay did not arrive at the scheduler as bytes; it got %q", sched.received())
	}
	if got.Forged == "written" {
		for !strings.Contains(sched.received(), "RELAY-MARK-2") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(sched.received(), "RELAY-MARK-2") {
			t.Errorf("a forged frame went somewhere other than the scheduler (forged: %s)", got.Forged)
		}
	} else {
		t.Logf("forging a relay frame: %s", got.Forged)
	}
	// The session is still whole: a cell runs.
	res = run(t, s, "print(1 + 1)")
	if res.Error != nil || strings.TrimSpace(res.Stdout) != "2" {
		t.Errorf("after the relay was abused, a cell gives %q %+v", res.Stdout, res.Error)
	}
}
