//go:build tools

// Package main pins the module dependencies that packages are growing into.
package main

import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/BurntSushi/toml"
	_ "github.com/charmbracelet/x/exp/golden"
	_ "github.com/moby/moby/client"
	_ "github.com/sashabaranov/go-openai"
)

func main() {}
