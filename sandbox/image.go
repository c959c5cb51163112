package sandbox

import (
	"context"
	"io"
)

// CONTRACT (lead): the image owner fills these in.

// ImageRef is the tag of the image built from the current recipe,
// quarry-sandbox:<recipe hash>.
func ImageRef() string { return "quarry-sandbox:" + RecipeHash() }

// RecipeHash identifies the image recipe (package list, Dockerfile, setup).
func RecipeHash() string { return "dev" }

// ImagePresent reports whether the image for the current recipe exists.
func (e *Engine) ImagePresent(ctx context.Context) (bool, error) { return false, errTODO }

// BuildImage builds the image for the current recipe, writing progress to w.
func (e *Engine) BuildImage(ctx context.Context, w io.Writer) error { return errTODO }

// EnsureImage builds the image when it is missing or its recipe changed.
func (e *Engine) EnsureImage(ctx context.Context, w io.Writer) error { return errTODO }
