package protocol

import (
	"embed"
	"io/fs"
	"strings"
)

// Schemas holds the JSON Schemas (draft 2020-12) of every wire type, one file
// per type, named after the method they belong to
// ("tool.invoke.params.json") or the type ("toolresult.json"). They are
// the contract; internal/schema compiles and checks against them.
//
//go:embed schema/*.json
var Schemas embed.FS

// SchemaBaseURL is the prefix of every schema's $id; files refer to each
// other by relative reference.
const SchemaBaseURL = "https://steerable.dev/schema/"

// SchemaNames lists the embedded schema files.
func SchemaNames() []string {
	files, _ := fs.Glob(Schemas, "schema/*.json")
	for i, f := range files {
		files[i] = strings.TrimPrefix(f, "schema/")
	}
	return files
}
