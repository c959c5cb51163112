package image_test

import (
	"context"
	"testing"
	"time"
)

// testCtx is a context for one engine call that ends with the test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
