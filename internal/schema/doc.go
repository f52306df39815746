// Package schema owns the sidecar's JSON Schemas: compiling them, checking
// instances against them, and the policy both follow. Every other package
// goes through it; only this one imports the validator
// (github.com/santhosh-tekuri/jsonschema/v6, patched in third_party/ to
// compile its metaschemas on first use rather than at start-up).
//
// Two kinds of schema pass through:
//
//   - The wire schemas (protocol/schema/*.json): fixed in the binary, they
//     refer to each other by relative $ref under protocol.SchemaBaseURL.
//     A Set compiles each on its first use, so start-up pays for none of
//     them (Wire).
//   - Tool parameters schemas: from built-in tools, hosts
//     (host_tools.register) and plugins (an MCP server's inputSchema).
//     These are hostile input, so Compile applies the metaschema policy:
//     draft 2020-12 unless the schema's $schema names another draft the
//     validator knows (4, 6, 7, 2019-09), the schema is validated against
//     its draft's metaschema, and no external $ref is ever loaded — not a
//     file ("file:///etc/passwd"), not a URL.
//
// Checking arguments has two speeds. Most tools' schemas are flat (an object
// of strings, bounded integers and booleans); for those Compile also builds
// a fast check (flat.go) that reads the arguments once without decoding
// them. It only ever accepts: anything it is unsure of goes to the
// validator, which decides and names what is wrong (FuzzFlat holds it to
// that).
//
// Registering schemas has two steps too. Compiling one costs about 0.1 ms,
// 50 ms of the start of a plugin listing 500 tools; so registration runs
// only CheckShape, which catches the mistakes servers make in practice and
// never refuses what Compile accepts (FuzzCheckShape), and the full
// Compile runs after registration, in the background (internal/plugins).
package schema
