// Package sidecar is the module root. It holds only tool_contract.json, the
// cross-implementation contract (version algorithm and vectors, the file-tool
// fields, tool_search's ranking), embedded so `steerable-sidecar contract`
// prints exactly the file in the repository.
package sidecar

import _ "embed"

// Contract is tool_contract.json.
//
//go:embed tool_contract.json
var Contract []byte
