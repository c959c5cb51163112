package source

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// DaskSpec is a Dask cluster as the user gives it: the scheduler's address
// (tcp://HOST:PORT or tls://HOST:PORT; 8786 when no port is given) and, for
// tls://, the files distributed's security settings name
// (distributed.comm.tls.ca-file, .client.cert, .client.key).
type DaskSpec struct {
	Address   string
	CAFile    string
	CertFile  string
	KeyFile   string
	MaxResult int64 // bytes one compute may bring back into the sandbox; 0: no limit
}

// DefaultDaskPort is the scheduler's port when an address names none.
const DefaultDaskPort = 8786

// Dask is one scheduler the host dials for the sandbox's relay. Its name is
// the address without user information, path or query: what records,
// prompts and errors say. The TLS keys stay here.
type Dask struct {
	host    string // host:port
	name    string
	tls     *tls.Config // nil for tcp://
	max     int64
	secrets []string
}

// ParseDask checks a cluster's address and loads its TLS files.
func ParseDask(spec DaskSpec) (*Dask, error) {
	raw := strings.TrimSpace(spec.Address)
	if raw == "" {
		return nil, errors.New("dask: no scheduler address: give --dask tcp://HOST:PORT")
	}
	if !strings.Contains(raw, "://") {
		raw = "tcp://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("dask: %q is not a scheduler address: give tcp://HOST:PORT or tls://HOST:PORT", maskAddress(spec.Address))
	}
	d := &Dask{max: spec.MaxResult}
	if u.User != nil {
		d.secrets = append(d.secrets, u.User.String())
		if p, ok := u.User.Password(); ok {
			d.secrets = append(d.secrets, p)
		}
	}
	if q := u.RawQuery; q != "" {
		d.secrets = append(d.secrets, q)
	}
	switch u.Scheme {
	case "tcp", "tls":
	default:
		return nil, fmt.Errorf("dask: scheduler address %s: quarry reaches tcp:// and tls:// schedulers, not %s://", maskAddress(spec.Address), u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = strconv.Itoa(DefaultDaskPort)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("dask: scheduler address %s: port %q is not a port", maskAddress(spec.Address), port)
	}
	d.host = net.JoinHostPort(host, port)
	d.name = u.Scheme + "://" + d.host
	if u.Scheme == "tls" {
		if d.tls, err = daskTLS(spec, host); err != nil {
			return nil, err
		}
	} else if spec.CertFile != "" || spec.KeyFile != "" {
		return nil, fmt.Errorf("dask: TLS files given for %s, which is tcp://: use tls://%s", d.name, d.host)
	}
	return d, nil
}

// daskTLS builds the client side as distributed does: the scheduler's
// certificate is checked against the CA file, not against its host name
// (distributed's TLS does not check names); without a CA file, the system's
// roots and the host name, as for a hosted service's public certificate.
func daskTLS(spec DaskSpec, host string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
	if (spec.CertFile == "") != (spec.KeyFile == "") {
		return nil, errors.New("dask: give both the client certificate and its key (tls_client_cert and tls_client_key), or neither")
	}
	if spec.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(spec.CertFile, spec.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("dask: client certificate %s: %w", spec.CertFile, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	if spec.CAFile == "" {
		return c, nil
	}
	pem, err := os.ReadFile(spec.CAFile)
	if err != nil {
		return nil, fmt.Errorf("dask: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("dask: CA file %s holds no PEM certificate", spec.CAFile)
	}
	c.InsecureSkipVerify = true // the chain is checked below, the name is not (as distributed)
	c.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the scheduler sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, ic := range cs.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
	return c, nil
}

// Name is the cluster without credentials: scheme, host and port.
func (d *Dask) Name() string { return d.name }

// MaxResult is the byte limit on what one compute brings back.
func (d *Dask) MaxResult() int64 { return d.max }

// Secrets are the parts of the address that must not be shown.
func (d *Dask) Secrets() []string {
	if d == nil {
		return nil
	}
	return d.secrets
}

// Dial opens one connection to the scheduler, TLS spoken when it is tls://.
func (d *Dask) Dial(ctx context.Context) (net.Conn, error) {
	var nd net.Dialer
	conn, err := nd.DialContext(ctx, "tcp", d.host)
	if err != nil {
		return nil, fmt.Errorf("dask scheduler %s: %w", d.name, unwrapDial(err))
	}
	if d.tls == nil {
		return conn, nil
	}
	tc := tls.Client(conn, d.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("dask scheduler %s: TLS: %w", d.name, err)
	}
	return tc, nil
}

func unwrapDial(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// maskAddress drops what may be a credential from an address the user
// gave (user information, a query) before an error quotes it.
func maskAddress(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = "***@" + rest[at+1:]
		}
		s = s[:i+3] + rest
	}
	if q := strings.IndexAny(s, "?#"); q >= 0 {
		s = s[:q]
	}
	return s
}
