// Package lsp runs language servers for the model: gopls, pyright,
// typescript-language-server and whatever STEERABLE_LSP_CONFIG names, each a
// supervised child under the layer-2 sandbox, spoken to over LSP's own
// framing (sourcegraph/jsonrpc2's Content-Length codec) with the protocol
// types of go.lsp.dev/protocol.
//
// A model that edits code blind finds its compile errors only when it runs
// the build, a round trip later. Two things close that loop: the file tools
// ask the Manager for the diagnostics of what they changed (AfterWrite), and
// the lsp tool asks for definitions, references, hover text and symbols
// (Manager.Run), with positions named by line and symbol name because a
// model cannot count UTF-16 columns.
//
// Servers start on first need, are restarted after a crash with a backoff,
// stop when idle and at shutdown with their whole process tree. A server
// reads the workspace and writes only its own cache directory; the network
// is off. Nothing here blocks without a deadline: a server that never
// answers initialize, or a request, is an error naming the timeout.
package lsp
