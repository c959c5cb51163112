// Package doctor checks what quarry needs, one check at a time: the
// configuration, the container engine (Docker or Podman), the sandbox
// image, a real sandbox (that it starts, runs a cell and has no network)
// and the limits that hold in it, the model endpoint, each database
// source, the command an MCP client runs (mcp.go), and the terminal. It
// uses the same sandbox engine and configuration code as a session and
// returns results; the command line prints them. It imports
// sandbox, config, source, render and secret, never cli.
package doctor

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/engine"
	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/render"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/secret"
)

// State is a check's outcome.
type State int

const (
	OK State = iota
	Failed
	Skipped
	Warning // holds, with a caveat the user must know; not a failure
)

// Check is one line of `quarry doctor`.
type Check struct {
	Name   string
	State  State
	Detail string // what was found; may span lines
	Fix    string // how to fix it, for failures and warnings
}

// Options say what to check with.
type Options struct {
	Overrides config.Overrides    // the flags, as for a chat
	Terminal  bool                // standard output is a terminal
	Getenv    func(string) string // nil means os.Getenv
	// Probe asks the terminal what it is (ProbeTerminal); nil leaves the
	// environment alone to tell.
	Probe func() render.Terminal
	// Executable is quarry's path, for the MCP line; "" finds it.
	Executable string
}

// Timeout bounds a whole run; starting the sandbox is the slow part.
const Timeout = 3 * time.Minute

// Run runs the checks in order and reports each as it finishes; texts are
// masked with the configuration's secrets. It stops early, returning ctx's
// error, when ctx is cancelled: the check that was running is not reported
// (its failure would only say "cancelled"). Whatever it started is removed
// before it returns.
func Run(ctx context.Context, o Options, report func(Check)) error {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	cfg, cfgCheck := checkConfig(o.Overrides)
	mask := cfg.Masker()
	emit := func(c Check) {
		c.Detail, c.Fix = mask.MaskError(c.Detail), mask.MaskError(c.Fix)
		report(c)
	}
	emit(cfgCheck)

	engine, engCheck := checkEngine(ctx, o.Getenv)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	emit(engCheck)
	if engine != nil {
		defer engine.Close()
	}
	imgCheck := checkImage(ctx, engine, cfg)
	emit(imgCheck)
	sbCheck, limCheck, daskCheck := checkSandbox(ctx, engine, cfg, imgCheck.State == OK)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	emit(sbCheck)
	emit(limCheck)
	if cfg.Dask.Address != "" {
		emit(daskCheck)
	}
	modelCheck := checkModel(ctx, cfg, cfgCheck.State == OK)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	emit(modelCheck)
	for _, c := range checkSources(ctx, cfg) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		emit(c)
	}
	emit(checkSharing(cfg))
	emit(checkMCP(o.Executable, sbCheck.State == OK))
	t := render.Terminal{Getenv: o.Getenv}
	if o.Terminal && o.Probe != nil {
		t = o.Probe()
		t.Getenv = o.Getenv
	}
	emit(checkTerminal(cfg, o.Terminal, t))
	return nil
}

var configPrefixRE = regexp.MustCompile(`(?m)^config: `)

func checkConfig(o config.Overrides) (config.Config, Check) {
	r := Check{Name: "configuration"}
	c, err := config.Load(o)
	if err != nil {
		r.State, r.Detail = Failed, configPrefixRE.ReplaceAllString(err.Error(), "")
		r.Fix = "correct the setting named above (quarry config --help lists them)"
		// Carry on with the defaults so the other checks still run.
		if d, derr := config.Merge(config.Overrides{ConfigPath: os.DevNull}); derr == nil {
			c = d
		}
		return c, r
	}
	if c.FileLoaded {
		r.Detail = c.File
	} else {
		r.Detail = "built-in defaults (no file at " + c.File + ")"
	}
	if c.Profile != "" {
		r.Detail += ", profile " + c.Profile
	}
	return c, r
}

func checkEngine(ctx context.Context, getenv func(string) string) (*engine.Engine, Check) {
	r := Check{Name: "container engine"}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var swept string
	e, err := sandbox.Connect(cctx, func(line string) { swept = line })
	if err != nil {
		r.State, r.Detail = Failed, err.Error()
		r.Fix = "start Docker (sudo systemctl start docker) or Podman (systemctl --user start podman.socket), or set DOCKER_HOST to a running engine"
		if h := getenv("DOCKER_HOST"); h != "" {
			r.Fix = "start the engine at DOCKER_HOST=" + secret.URL(h) + ", or unset DOCKER_HOST to use the local one"
		}
		return nil, r
	}
	where := "local"
	if e.Remote() {
		where = "remote"
	}
	runtime := e.Runtime()
	if runtime != "runsc" {
		runtime += " (gVisor's runsc not in use)"
	}
	r.Detail = fmt.Sprintf("%s, API %s, runtime %s, %s at %s", e.Describe(), e.APIVersion(), runtime, where, secret.URL(e.Host()))
	if swept != "" {
		r.Detail += "\n" + swept
	}
	return e, r
}

func checkImage(ctx context.Context, e *engine.Engine, c config.Config) Check {
	r := Check{Name: "sandbox image"}
	if e == nil {
		r.State, r.Detail = Skipped, "no engine"
		return r
	}
	if c.Image != "" {
		ok, err := image.Exists(ctx, e, c.Image)
		switch {
		case err != nil:
			r.State, r.Detail, r.Fix = Failed, err.Error(), "check the engine, then run quarry doctor again"
		case !ok:
			r.State, r.Detail = Failed, fmt.Sprintf("%s (set by image, %s) is not in the engine", c.Image, c.Source("image"))
			r.Fix = "build or load that image (docker load / docker tag), or unset image to use quarry's own: quarry sandbox build"
		default:
			r.Detail = c.Image + " present (a custom image: its recipe is not checked)"
		}
		return r
	}
	ref := image.Ref()
	ok, err := image.Present(ctx, e)
	switch {
	case err != nil:
		r.State, r.Detail, r.Fix = Failed, err.Error(), "check the engine, then run quarry doctor again"
	case !ok:
		r.State, r.Detail = Failed, ref+" (the current recipe) is missing"
		if old, _ := image.Older(ctx, e); len(old) > 0 {
			r.Detail += "; older recipe found: " + strings.Join(old, ", ")
		}
		r.Fix = "quarry sandbox build"
	default:
		r.Detail = ref + " present, recipe current"
		if pkgs, err := image.Packages(ctx, e, ref); err != nil {
			r.Detail += "\npackage versions unknown: " + err.Error()
		} else {
			r.Detail += "\n" + wrapList(image.RecipePackages(pkgs), 96)
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
