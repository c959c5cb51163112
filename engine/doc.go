// Package engine is quarry's connection to the container engine: Docker, or
// Podman through its Docker-compatible API, on the local socket, tcp:// or
// ssh://; what the engine is and offers (kind, version, runtime, rootless,
// cgroup version); the labels on everything quarry creates and their
// removal; and the engine's own words when it refuses something.
//
// It knows nothing of kernels, images or sessions: it must not import any
// other quarry package.
package engine
