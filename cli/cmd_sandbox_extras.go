package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/kernel"
	"github.com/quarry-cli/quarry/sandbox"
)

// sandboxAddCmd is `quarry sandbox add NAME...`: Debian packages (or the
// packages of Python modules) built into a derived sandbox image.
func (a *app) sandboxAddCmd() *cobra.Command {
	var deb bool
	c := &cobra.Command{
		Use:   "add NAME...",
		Short: "Add Debian packages to the sandbox image: a package name, or a Python module the archive maps to its package",
		Long: `Add Debian packages to the sandbox image. The host's apt resolves each NAME
against the packages the image has and downloads them from the Debian mirror
the host's apt sources name (or QUARRY_DEBIAN_MIRROR), checking the archive's
signed Release file and every hash; dpkg installs them in a build container
with no network. The result, quarry-sandbox:<recipe>-<extras>, is the image
new sessions use.

NAME is a Python module (xgboost: the archive's Contents index maps it to
python3-xgboost) or a Debian package (python3-xgboost). A package that would
bring pip, a compiler or a setuid file is refused.`,
		Example: `quarry sandbox add xgboost            # the module's package, python3-xgboost
quarry sandbox add --deb graphviz     # the Debian package named graphviz, not the module
quarry sandbox status                 # the extras and their versions
quarry sandbox remove python3-xgboost`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(c, "name what to add: a Python module (xgboost) or a Debian package (python3-xgboost)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			kind := image.AskAuto
			if deb {
				kind = image.AskPackage
			}
			asks := make([]image.Ask, len(args))
			for i, n := range args {
				asks[i] = image.Ask{Name: n, Kind: kind}
			}
			return a.sandboxAdd(asks)
		},
	}
	c.Flags().BoolVar(&deb, "deb", false, "read every NAME as a Debian package name, never as a Python module")
	return c
}

// sandboxRemoveCmd is `quarry sandbox remove NAME...`.
func (a *app) sandboxRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME...",
		Short: "Take packages added with quarry sandbox add out of the sandbox image",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(c, "name the extras to remove (quarry sandbox status lists them)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.sandboxRemove(args) },
	}
}

// withInstaller connects to the engine and makes the installer for the
// host's archive, with Ctrl+C cancelling whatever runs.
func (a *app) withInstaller(op string, run func(ctx context.Context, in *image.Installer) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := sandbox.Connect(ctx, a.note)
	if err != nil {
		return engineFailure(op, err)
	}
	defer e.Close()
	in, err := image.HostInstaller(e)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	start := time.Now()
	if err := run(ctx, in); err != nil {
		if ctx.Err() != nil {
			return interrupted{fmt.Sprintf("%s: interrupted after %s; the sandbox image is as it was", op, time.Since(start).Round(time.Second))}
		}
		return engineFailure(op, err)
	}
	return nil
}

func (a *app) sandboxAdd(asks []image.Ask) error {
	return a.withInstaller("sandbox add", func(ctx context.Context, in *image.Installer) error {
		p, err := in.Plan(ctx, a.stderr, asks)
		if err != nil {
			return err
		}
		for _, r := range p.Asked {
			state := "to add"
			if r.Have {
				state = "in the sandbox already"
			}
			fmt.Fprintf(a.stderr, "%s: %s %s, %s\n", r.Name, r.Package, r.Version, state)
		}
		if p.Empty() {
			cur, _ := image.CurrentImage(ctx, in.Engine)
			fmt.Fprintln(a.stdout, cur.Ref)
			return nil
		}
		fmt.Fprintf(a.stderr, "adding %s (%s to download, %s unpacked): %s\n", packages(len(p.New)),
			kernel.FormatSize(p.Download()), kernel.FormatSize(p.Size()), newNames(p))
		d, err := in.Build(ctx, a.stderr, p)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, d.Ref)
		return nil
	})
}

func (a *app) sandboxRemove(names []string) error {
	return a.withInstaller("sandbox remove", func(ctx context.Context, in *image.Installer) error {
		d, err := in.Remove(ctx, a.stderr, names)
		if err != nil {
			return err
		}
		if len(d.Extras) == 0 {
			fmt.Fprintf(a.stderr, "no extras left: sessions use %s\n", d.Ref)
		}
		fmt.Fprintln(a.stdout, d.Ref)
		return nil
	})
}

func packages(n int) string {
	if n == 1 {
		return "1 package"
	}
	return fmt.Sprintf("%d packages", n)
}

func newNames(p image.Plan) string {
	var parts []string
	for _, d := range p.New {
		parts = append(parts, d.Name+" "+d.Version)
	}
	return strings.Join(parts, ", ")
}

// printExtras lists the derived image's extras for sandbox status.
func printExtras(w io.Writer, d image.Derived, base string) {
	if len(d.Extras) == 0 {
		fmt.Fprintln(w, "extras: none (quarry sandbox add NAME adds a Debian package, or the package of a Python module)")
		return
	}
	fmt.Fprintf(w, "extras (%s, built on %s; quarry sandbox add/remove):\n", d.Ref, shortID(d.Base))
	var deps []string
	for _, x := range d.Extras {
		if x.Kind == image.ExtraRequested {
			fmt.Fprintf(w, "  %-28s %s\n", x.Name, x.Version)
		} else {
			deps = append(deps, x.Name+" "+x.Version)
		}
	}
	if len(deps) > 0 {
		fmt.Fprintf(w, "  with %s: %s\n", packages(len(deps)), strings.Join(deps, ", "))
	}
	if base != "" && d.Base != "" && d.Base != base {
		fmt.Fprintf(w, "  note: the base image was rebuilt since: run quarry sandbox add %s to rebuild the extras on it\n", requestedNames(d))
	}
}

func requestedNames(d image.Derived) string {
	var names []string
	for _, p := range d.Requested() {
		names = append(names, p.Name)
	}
	return strings.Join(names, " ")
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	return id[:min(12, len(id))]
}
