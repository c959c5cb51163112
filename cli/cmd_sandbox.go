package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quarry-cli/quarry/image"
	"github.com/quarry-cli/quarry/sandbox"
	"github.com/quarry-cli/quarry/secret"
)

// sandboxCmd is `quarry sandbox build|status|ref|add|remove|save|load|warm`.
func (a *app) sandboxCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Build the sandbox image, add Debian packages to it, tell its state or tag, or keep sandboxes started",
		Example: `# build the image for this recipe (progress on stderr, the tag on stdout)
quarry sandbox build [--via auto|dockerfile|debootstrap] [--force]
# print the image tag for this recipe, whether it is built, and its extras
quarry sandbox status
# add a Python module's Debian package (or a package by name), from the signed archive
quarry sandbox add xgboost
quarry sandbox remove python3-xgboost
# print the image tag for this recipe
quarry sandbox ref
# keep 2 sandboxes started for the next quarry -p runs with warm set
quarry sandbox warm --size 2
# carry the image to a machine with no registry or Debian mirror
quarry sandbox save sandbox.tar.gz    # here
quarry sandbox load sandbox.tar.gz    # there`,
		Args: unknownCommand,
		RunE: func(c *cobra.Command, _ []string) error {
			return usagef(c, "say what to do: quarry sandbox build|status|ref|add|remove|save|load|warm")
		},
	}
	c.AddCommand(a.sandboxBuildCmd(), a.sandboxWarmCmd(), a.sandboxAddCmd(), a.sandboxRemoveCmd(), a.sandboxSaveCmd(), a.sandboxLoadCmd(), &cobra.Command{
		Use:   "status",
		Short: "Print the image tag for this recipe, whether it is built, and the packages added to it",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return a.sandboxStatus() },
	}, &cobra.Command{
		Use:   "ref",
		Short: "Print the image tag for this recipe",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, image.Ref())
			return nil
		},
	})
	return c
}

func (a *app) sandboxBuildCmd() *cobra.Command {
	var via string
	var force bool
	c := &cobra.Command{
		Use:   "build",
		Short: "Build the sandbox image: progress on stderr, the tag on stdout",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			switch image.BuildPath(via) {
			case image.BuildAuto, image.BuildDockerfile, image.BuildDebootstrap:
			default:
				return usagef(c, "--via %q: use auto, dockerfile or debootstrap", via)
			}
			return a.sandboxBuild(image.BuildPath(via), force)
		},
	}
	c.Flags().StringVar(&via, "via", "auto", "auto (Dockerfile when debian:forky-slim is in the engine, else debootstrap), dockerfile or debootstrap")
	c.Flags().BoolVar(&force, "force", false, "rebuild even when the image for this recipe exists")
	return c
}

func (a *app) sandboxBuild(via image.BuildPath, force bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := sandbox.Connect(ctx, a.note)
	if err != nil {
		return engineFailure("sandbox build", err)
	}
	defer e.Close()
	ref := image.Ref()
	if !force {
		ok, err := image.Present(ctx, e)
		if err != nil {
			return engineFailure("sandbox build", err)
		}
		if ok {
			fmt.Fprintf(a.notes, "%s is already built (--force rebuilds it)\n", ref)
			fmt.Fprintln(a.stdout, ref)
			return nil
		}
	}
	start := time.Now()
	if err := image.BuildWith(ctx, e, a.stderr, via); err != nil {
		if ctx.Err() != nil {
			return interrupted{fmt.Sprintf("sandbox build: interrupted after %s", time.Since(start).Round(time.Second))}
		}
		return engineFailure("sandbox build", err)
	}
	fmt.Fprintln(a.stdout, ref)
	return nil
}

func (a *app) sandboxStatus() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ref := image.Ref()
	e, err := sandbox.Connect(ctx, a.note)
	if err != nil {
		return engineFailure("sandbox status", err)
	}
	defer e.Close()
	ok, err := image.Present(ctx, e)
	if err != nil {
		return engineFailure("sandbox status", err)
	}
	state := "built"
	if !ok {
		state = "missing: run `quarry sandbox build` (as root for the offline build) or `make image`"
	}
	fmt.Fprintf(a.text, "%s  %s\nengine %s, API %s, at %s\n", ref, state, e.Describe(), e.APIVersion(), secret.URL(e.Host()))
	if !ok {
		return silent{code: exitFailed}
	}
	pkgs, err := image.Packages(ctx, e, ref)
	if err != nil {
		return engineFailure("sandbox status", err)
	}
	fmt.Fprintf(a.text, "packages (%d in all; the recipe's):\n", len(pkgs))
	for _, p := range image.RecipePackages(pkgs) {
		fmt.Fprintf(a.text, "  %-28s %s\n", p.Name, p.Version)
	}
	cur, err := image.CurrentImage(ctx, e)
	if err != nil {
		return engineFailure("sandbox status", err)
	}
	base := ""
	if info, err := e.Client().ImageInspect(ctx, ref); err == nil {
		base = info.ID
	}
	printExtras(a.stdout, cur, base)
	return nil
}
