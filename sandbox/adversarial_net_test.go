package sandbox_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarry-cli/quarry/sandbox"
)

// Network isolation is proven without sending a packet off this machine, even
// if isolation were broken: the cell first checks it has no interface but lo
// and no route, and only then tries to reach listeners this test opens on the
// host's own addresses (the Docker bridge gateway included). DNS and raw
// sockets are tried only behind the same check.

// netProbe is the cell's guard: it sets ISOLATED only when there is nothing
// but lo and no IPv4 route, and no IPv6 route through anything but lo.
const netProbe = `
def _lines(p):
    try:
        with open(p) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []
ifaces = sorted(l.split(':')[0].strip() for l in _lines('/proc/net/dev')[2:])
routes4 = [l for l in _lines('/proc/net/route')[1:] if l.strip()]
routes6 = [l.split() for l in _lines('/proc/net/ipv6_route') if l.strip()]
ISOLATED = ifaces == ['lo'] and not routes4 and all(r[-1] == 'lo' for r in routes6)
out = {'ifaces': ifaces, 'routes4': routes4, 'routes6_devs': sorted({r[-1] for r in routes6}), 'isolated': ISOLATED}
`

func TestAdversarialNetwork(t *testing.T) {
	s, _ := advSession(t, sandbox.Options{Timeout: 60 * time.Second})

	t.Run("NoInterfaceButLoAndNoRoutes", func(t *testing.T) {
		var out struct {
			Ifaces      []string `json:"ifaces"`
			Routes4     []string `json:"routes4"`
			Routes6Devs []string `json:"routes6_devs"`
			Isolated    bool     `json:"isolated"`
		}
		runJSON(t, s, netProbe+report, &out)
		if strings.Join(out.Ifaces, ",") != "lo" {
			t.Errorf("interfaces = %q, want only lo", out.Ifaces)
		}
		if len(out.Routes4) != 0 {
			t.Errorf("IPv4 routes = %q, want none", out.Routes4)
		}
		for _, d := range out.Routes6Devs {
			if d != "lo" {
				t.Errorf("IPv6 route through %q, want none but lo", d)
			}
		}
		if !out.Isolated {
			t.Error("the cell's own isolation guard did not pass")
		}
	})

	t.Run("HostListenerUnreachable", func(t *testing.T) {
		port, accepted := hostListener(t)
		udp, err := net.ListenPacket("udp", fmt.Sprintf(":%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer udp.Close()
		targets := hostAddrs(t)
		code := netProbe + fmt.Sprintf(`
import socket, errno
TARGETS, PORT = %s, %d
res = {}
if ISOLATED:
    for host in TARGETS:
        fam = socket.AF_INET6 if ':' in host else socket.AF_INET
        for kind, name in ((socket.SOCK_STREAM, 'tcp'), (socket.SOCK_DGRAM, 'udp')):
            s = socket.socket(fam, kind)
            s.settimeout(3)
            try:
                if kind == socket.SOCK_STREAM:
                    s.connect((host, PORT))
                    r = 'connected'
                else:
                    s.sendto(b'quarry-probe', (host, PORT))
                    r = 'sent'
            except OSError as e:
                r = errno.errorcode.get(e.errno, str(e))
            finally:
                s.close()
            res[name + ' ' + host] = r
out['results'] = res
`, pyList(targets), port) + report
		var out struct {
			Isolated bool              `json:"isolated"`
			Results  map[string]string `json:"results"`
		}
		runJSON(t, s, code, &out)
		if !out.Isolated {
			t.Fatal("the container has a network interface or route: no connect was tried")
		}
		if len(out.Results) != 2*len(targets) {
			t.Errorf("results %v, want one per target and protocol", out.Results)
		}
		for k, r := range out.Results {
			if r == "connected" || r == "sent" {
				t.Errorf("%s from inside the sandbox: %s, want a network error", k, r)
			}
		}
		udp.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		buf := make([]byte, 64)
		if n, from, err := udp.ReadFrom(buf); err == nil {
			t.Errorf("host UDP listener received %q from %v", buf[:n], from)
		}
		if n := accepted.Load(); n != 0 {
			t.Errorf("host TCP listener accepted %d connections from the sandbox", n)
		}
		t.Logf("targets %v: %v", targets, out.Results)
	})

	t.Run("DNSFails", func(t *testing.T) {
		code := netProbe + `
import socket
if ISOLATED:
    try:
        out['dns'] = 'resolved: %r' % (socket.getaddrinfo('quarry-probe.invalid', 443)[:1],)
    except OSError as e:
        out['dns'] = type(e).__name__ + ': ' + str(e)
` + report
		var out struct {
			Isolated bool   `json:"isolated"`
			DNS      string `json:"dns"`
		}
		runJSON(t, s, code, &out)
		if !out.Isolated {
			t.Fatal("not isolated: DNS was not tried")
		}
		if !strings.HasPrefix(out.DNS, "gaierror") {
			t.Errorf("DNS lookup: %q, want a gaierror", out.DNS)
		}
	})

	t.Run("RawSocketRefused", func(t *testing.T) {
		// Creating a socket sends nothing; refusing it proves CAP_NET_RAW is gone.
		code := `
import socket
out = {}
for name, args in (('raw_icmp', (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
                   ('raw_tcp', (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)),
                   ('packet', (socket.AF_PACKET, socket.SOCK_RAW, 0))):
    try:
        socket.socket(*args).close()
        out[name] = 'created'
    except OSError as e:
        out[name] = type(e).__name__
` + report
		var out map[string]string
		runJSON(t, s, code, &out)
		for k, v := range out {
			if v != "PermissionError" {
				t.Errorf("%s socket: %s, want PermissionError", k, v)
			}
		}
	})
}

// hostAddrs lists this machine's own non-loopback addresses, the Docker
// bridge gateway first. Every one of them is this host: a packet to them
// never leaves the machine.
func hostAddrs(t *testing.T) []string {
	t.Helper()
	addrs := []string{}
	seen := map[string]bool{}
	add := func(ip net.IP) {
		if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || seen[ip.String()] {
			return
		}
		seen[ip.String()] = true
		addrs = append(addrs, ip.String())
	}
	if ifc, err := net.InterfaceByName("docker0"); err == nil {
		as, _ := ifc.Addrs()
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok {
				add(n.IP)
			}
		}
	}
	if len(addrs) == 0 {
		add(net.ParseIP("172.17.0.1")) // the default bridge gateway
	}
	ifaces, err := net.Interfaces()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Logf("list host interfaces: %v", err)
	}
	for _, ifc := range ifaces {
		as, _ := ifc.Addrs()
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok {
				add(n.IP)
			}
		}
	}
	return addrs
}

func pyList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = pyStr(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// hostListener listens on TCP at every host address (the bridge gateway
// included) until the test ends, counting the connections it accepts.
func hostListener(t *testing.T) (int, *atomic.Int32) {
	t.Helper()
	tcp, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	accepted := new(atomic.Int32)
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return tcp.Addr().(*net.TCPAddr).Port, accepted
}
