// Package protocol holds the wire surface of steerable-sidecar: the Go types
// of every JSON-RPC method's params and results, the tool model (ToolCall,
// ToolResult, ToolDescriptor), the error codes and kinds of SPEC §1, and the
// JSON Schemas (draft 2020-12) under schema/ that describe the same types for
// hosts written in other languages.
//
// The schemas and the Go types are two views of one contract; schema_test.go
// round-trips examples through both and compares field sets in both
// directions, so neither can drift without a failing test.
//
// This package has no logic beyond small helpers such as IsTerminal.
package protocol

// ProtocolVersion is the wire protocol version announced in lifecycle.ready
// and Health.
const ProtocolVersion = "0.1.0"
