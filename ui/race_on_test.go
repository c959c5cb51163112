//go:build race

package ui

// raceOn: the race detector slows rendering ~5x; sweeps take a sample.
const raceOn = true
