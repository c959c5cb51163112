// Package mcp is `quarry mcp`: quarry's sandbox, files, databases and
// number checks as a Model Context Protocol server, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, imported as sdk), over stdio or
// streamable HTTP.
//
// Each MCP session gets a quarry session of its own (package session, a
// session without a model: Options.Tool), started on the first tool call
// that needs a sandbox and closed when the client goes away or the server
// stops; it is recorded like a chat, so `quarry sessions`, `export`,
// `rerun` and `--resume` work on it. The client is as untrusted as a
// model: what it gets is what the chat shows the model (agent.CellView,
// agent.ProfileText), masked by the session; it attaches files only from
// the roots (roots.go) and reads back only the session's outputs.
//
// Files: server.go (the server, its sessions, the sandboxes' limit),
// client.go (one MCP session's quarry session), tools.go and
// tools_session.go (the tools and their types), schema.go (their schemas,
// written portably), cell.go (a cell's result as MCP content),
// resources.go (outputs and exports as resources), roots.go (what a client
// may attach), http.go (the token and Origin checks), progress.go. It must
// not import cli, ui or headless.
package mcp
