package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/quarry-cli/quarry/config"
	"github.com/quarry-cli/quarry/render"
)

// doctorPrinter writes one line per check, coloured only on a terminal.
type doctorPrinter struct {
	w      io.Writer
	color  bool
	failed int
}

func (p *doctorPrinter) print(r checkResult) {
	mark, paint := "✓", "32"
	switch r.state {
	case checkFailed:
		mark, paint = "✗", "31"
		p.failed++
	case checkSkipped:
		mark, paint = "–", "2"
	}
	if p.color {
		mark = "\x1b[" + paint + "m" + mark + "\x1b[0m"
	}
	lines := strings.Split(strings.TrimSpace(r.detail), "\n")
	if r.state == checkSkipped {
		lines[0] = "skipped: " + lines[0]
	}
	fmt.Fprintf(p.w, "%s %s: %s\n", mark, r.name, lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(p.w, "    %s\n", strings.TrimRight(l, " "))
	}
	if r.state == checkFailed && r.fix != "" && !strings.Contains(r.detail, "fix:") {
		fmt.Fprintf(p.w, "    fix: %s\n", r.fix)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// customImagePresent checks an image named in the configuration. The sandbox
// package only answers for its own recipe's image, so this asks the engine
// directly through a short-lived client.
func customImagePresent(ctx context.Context, ref string) (bool, error) {
	cli, err := dockerClient(ctx)
	if err != nil {
		return false, err
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		if cerrdefs.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("image inspect %s: %w", ref, err)
	}
	return true, nil
}

// olderSandboxImages lists quarry-sandbox tags other than current, which
// tell "the recipe changed" apart from "never built".
func olderSandboxImages(ctx context.Context, current string) []string {
	cli, err := dockerClient(ctx)
	if err != nil {
		return nil
	}
	defer cli.Close()
	repo, _, _ := strings.Cut(current, ":")
	res, err := cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("reference", repo)})
	if err != nil {
		return nil
	}
	var out []string
	for _, img := range res.Items {
		for _, t := range img.RepoTags {
			if t != current && len(out) < 3 {
				out = append(out, t)
			}
		}
	}
	return out
}

func dockerClient(ctx context.Context) (*client.Client, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("docker ping: %w", err)
	}
	return cli, nil
}

// checkTerminal reports colours and the figure protocol; it informs and
// never fails.
func checkTerminal(c config.Config, tty bool) checkResult {
	r := checkResult{name: "terminal"}
	if !tty {
		r.detail = "output is not a terminal: plain text, no colours, figures as files"
		return r
	}
	term := os.Getenv("TERM")
	if term == "" {
		term = "(unset)"
	}
	colours := map[render.ColorDepth]string{render.ColorNone: "none", render.Color256: "256", render.ColorTrue: "true colour"}[render.DetectColorDepth(os.Getenv)]
	if os.Getenv("NO_COLOR") != "" {
		colours = "off (NO_COLOR is set)"
	}
	images := string(render.DetectProtocol(os.Getenv)) + " (detected)"
	if c.Images != "" && c.Images != "auto" {
		images = c.Images + " (" + c.Source("images") + ")"
	}
	r.detail = fmt.Sprintf("TERM=%s, colours: %s, figures: %s", term, colours, images)
	return r
}
