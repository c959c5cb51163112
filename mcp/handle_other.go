//go:build !linux && !darwin

package mcp

import (
	"errors"
	"os"
)

// handlePath: this system's path of a descriptor is not read; the
// handle's identity is compared with the path's instead (checkHandle).
func handlePath(*os.File) (string, error) {
	return "", errors.New("not read on this system")
}
