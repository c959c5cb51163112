package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/sandbox"
)

// checkResult is one line of `quarry doctor`.
type checkResult struct {
	name    string
	state   checkState
	detail  string // what was found; may span lines
	fix     string // how to fix it, for failures
	timeout bool
}

type checkState int

const (
	checkOK checkState = iota
	checkFailed
	checkSkipped
)

var configPrefixRE = regexp.MustCompile(`(?m)^config: `)

// doctorTimeout bounds the whole run; starting the sandbox is the slow part.
const doctorTimeout = 3 * time.Minute

func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	var o config.Overrides
	fs := flag.NewFlagSet("quarry doctor", flag.ContinueOnError)
	addConfigFlags(fs, &o)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: quarry doctor [flags]\n\nChecks the configuration, Docker, the sandbox image, a sandbox, the model endpoint\nand the terminal; exits non-zero when a check fails.\n\nFlags:\n")
		printFlags(fs.Output(), fs)
	}
	if ok, code := parseCommand(fs, args, 0, stdout, stderr); !ok {
		return code
	}
	// Ctrl+C cancels the checks, so the deferred Closes remove doctor's
	// sandbox; killed by the default handler, it would leave it behind.
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, doctorTimeout)
	defer cancel()
	p := doctorPrinter{w: stdout, color: isTerminal(stdout) && os.Getenv("NO_COLOR") == ""}
	interrupted := func() bool {
		if sigCtx.Err() == nil {
			return false
		}
		fmt.Fprintln(stderr, "quarry doctor: interrupted")
		return true
	}

	cfg, cfgCheck := checkConfig(ctx, o)
	p.print(cfgCheck)

	engine, engCheck := checkEngine(ctx)
	if interrupted() {
		return exitInterrupted
	}
	p.print(engCheck)
	if engine != nil {
		defer engine.Close()
	}
	imgCheck := checkImage(ctx, engine, cfg)
	p.print(imgCheck)
	sbCheck := checkSandbox(ctx, engine, cfg, imgCheck.state == checkOK)
	if interrupted() {
		return exitInterrupted
	}
	p.print(sbCheck)

	modelCheck := checkModel(ctx, cfg, cfgCheck.state == checkOK)
	if interrupted() {
		return exitInterrupted
	}
	p.print(modelCheck)
	p.print(checkTerminal(cfg, isTerminal(stdout)))

	if p.failed > 0 {
		fmt.Fprintf(stdout, "\n%d check(s) failed.\n", p.failed)
		return exitFailed
	}
	fmt.Fprintln(stdout, "\nAll checks passed.")
	return exitOK
}

func checkConfig(ctx context.Context, o config.Overrides) (config.Config, checkResult) {
	r := checkResult{name: "configuration"}
	c, err := config.Load(o)
	if err != nil {
		r.state, r.detail = checkFailed, configPrefixRE.ReplaceAllString(err.Error(), "")
		r.fix = "correct the setting named above (quarry config --help lists them)"
		// Carry on with the defaults so the other checks still run.
		if d, derr := config.Merge(config.Overrides{ConfigPath: os.DevNull}); derr == nil {
			c = d
		}
		return c, r
	}
	if c.FileLoaded {
		r.detail = c.File
	} else {
		r.detail = "built-in defaults (no file at " + c.File + ")"
	}
	if c.Profile != "" {
		r.detail += ", profile " + c.Profile
	}
	return c, r
}

func checkEngine(ctx context.Context) (*sandbox.Engine, checkResult) {
	r := checkResult{name: "Docker engine"}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	e, err := sandbox.Connect(cctx)
	if err != nil {
		r.state, r.detail = checkFailed, err.Error()
		r.fix = "start Docker (sudo systemctl start docker), or set DOCKER_HOST to a running engine"
		if h := os.Getenv("DOCKER_HOST"); h != "" {
			r.fix = "start the engine at DOCKER_HOST=" + h + ", or unset DOCKER_HOST to use the local one"
		}
		return nil, r
	}
	where := "local"
	if e.Remote() {
		where = "remote"
	}
	runtime := e.Runtime()
	if runtime == "runc" {
		runtime = "runc (gVisor's runsc not installed)"
	}
	r.detail = fmt.Sprintf("%s, API %s, runtime %s, %s at %s", e.Version(), e.APIVersion(), runtime, where, e.Host())
	return e, r
}

func checkImage(ctx context.Context, e *sandbox.Engine, c config.Config) checkResult {
	r := checkResult{name: "sandbox image"}
	if e == nil {
		r.state, r.detail = checkSkipped, "no engine"
		return r
	}
	if c.Image != "" {
		ok, err := customImagePresent(ctx, c.Image)
		switch {
		case err != nil:
			r.state, r.detail, r.fix = checkFailed, err.Error(), "check the engine, then run quarry doctor again"
		case !ok:
			r.state, r.detail = checkFailed, fmt.Sprintf("%s (set by image, %s) is not in the engine", c.Image, c.Source("image"))
			r.fix = "build or load that image (docker load / docker tag), or unset image to use quarry's own: quarry sandbox build"
		default:
			r.detail = c.Image + " present (a custom image: its recipe is not checked)"
		}
		return r
	}
	ref := sandbox.ImageRef()
	ok, err := e.ImagePresent(ctx)
	switch {
	case err != nil:
		r.state, r.detail, r.fix = checkFailed, err.Error(), "check the engine, then run quarry doctor again"
	case !ok:
		r.state, r.detail = checkFailed, ref+" (the current recipe) is missing"
		if old := olderSandboxImages(ctx, ref); len(old) > 0 {
			r.detail += "; older recipe found: " + strings.Join(old, ", ")
		}
		r.fix = "quarry sandbox build"
	default:
		r.detail = ref + " present, recipe current"
		if pkgs, err := e.ImagePackages(ctx, ref); err != nil {
			r.detail += "\npackage versions unknown: " + err.Error()
		} else {
			r.detail += "\n" + wrapList(sandbox.RecipePackages(pkgs), 96)
		}
	}
	return r
}

// wrapList joins items with ", " into lines of about width characters.
func wrapList[T fmt.Stringer](items []T, width int) string {
	var b strings.Builder
	n := 0
	for i, it := range items {
		s := it.String()
		if i < len(items)-1 {
			s += ","
		}
		if n > 0 && n+1+len(s) > width {
			b.WriteString("\n")
			n = 0
		} else if n > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(s)
		n += len(s)
	}
	return b.String()
}

// noNetworkCell lists the sandbox's network interfaces and routes; a
// networkless container has only lo and no routes.
const noNetworkCell = `import os
try:
    ifaces = sorted(os.listdir('/sys/class/net'))
except OSError:
    ifaces = sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:] if ':' in l)
routes = [l for l in open('/proc/net/route').read().splitlines()[1:] if l.strip()]
print('IFACES=' + ','.join(ifaces))
print('ROUTES=%d' % len(routes))
`

func checkSandbox(ctx context.Context, e *sandbox.Engine, c config.Config, imageOK bool) checkResult {
	r := checkResult{name: "sandbox"}
	if e == nil || !imageOK {
		r.state, r.detail = checkSkipped, "needs the engine and the image"
		return r
	}
	out, err := os.MkdirTemp("", "quarry-doctor-")
	if err != nil {
		r.state, r.detail, r.fix = checkFailed, err.Error(), "check that the temporary folder is writable"
		return r
	}
	defer os.RemoveAll(out)
	start := time.Now()
	s, err := e.Start(ctx, sandbox.Options{
		Image: c.Image, OutputDir: out, Timeout: 30 * time.Second,
		Limits: sandbox.Limits{Memory: c.Memory, CPUs: c.CPUs},
	})
	if err != nil {
		r.state, r.detail = checkFailed, "does not start: "+err.Error()
		r.fix = "quarry sandbox build (to rebuild the image), and check that the engine has room (docker info)"
		return r
	}
	defer s.Close()
	started := time.Since(start)
	res, err := s.Exec(ctx, noNetworkCell, nil)
	if err != nil || res.Error != nil {
		why := ""
		if err != nil {
			why = err.Error()
		} else {
			why = res.Error.Message
		}
		r.state, r.detail, r.fix = checkFailed, "starts but cannot run a cell: "+why, "quarry sandbox build, then try again"
		return r
	}
	ifaces, routes := parseNetworkCell(res.Stdout)
	var extra []string
	for _, i := range ifaces {
		if i != "lo" {
			extra = append(extra, i)
		}
	}
	if len(extra) > 0 || routes != 0 || ifaces == nil {
		r.state = checkFailed
		r.detail = fmt.Sprintf("HAS A NETWORK: interfaces %s, %d route(s)", strings.Join(ifaces, ","), routes)
		r.fix = "do not analyse sensitive data until fixed: the container must run with network mode none; report this as a bug"
		return r
	}
	r.detail = fmt.Sprintf("starts in %s, runs a cell, has no network (interfaces: %s; no routes)", started.Round(100*time.Millisecond), strings.Join(ifaces, ","))
	return r
}

func parseNetworkCell(stdout string) (ifaces []string, routes int) {
	routes = -1
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "IFACES="); ok {
			ifaces = []string{}
			for _, i := range strings.Split(v, ",") {
				if i != "" {
					ifaces = append(ifaces, i)
				}
			}
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ROUTES="); ok {
			fmt.Sscanf(v, "%d", &routes)
		}
	}
	return ifaces, routes
}

func checkModel(ctx context.Context, c config.Config, cfgOK bool) checkResult {
	r := checkResult{name: "model endpoint"}
	if !cfgOK {
		r.state, r.detail = checkSkipped, "needs a valid configuration"
		return r
	}
	c, notice, err := config.Resolve(ctx, c)
	if err != nil {
		r.state, r.detail = checkFailed, err.Error()
		return r
	}
	if err := config.CheckModel(ctx, c); err != nil {
		r.state, r.detail = checkFailed, err.Error()
		r.fix = "check base_url, the key and the model with quarry config"
		return r
	}
	key := "no key"
	if c.APIKey != "" {
		key = "key from " + c.APIKeySource
	}
	r.detail = fmt.Sprintf("%s answers and has %s (%s, %s)", c.Endpoint(), c.Model, c.Provider, key)
	if c.Provider == config.ProviderAzure {
		r.detail = fmt.Sprintf("%s, deployment %s (Azure does not list deployments: not checked)", c.Endpoint(), c.Model)
	}
	if notice != "" {
		r.detail += "\n" + notice
	}
	return r
}
