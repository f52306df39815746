// Package winetest runs the Windows build of the sidecar under Wine: its
// tests (TestWindows, `make test-windows`) cross-build
// steerable-sidecar.exe and a stand-in shell, create one Wine prefix, and
// drive the binary over its stdio with the scripts in testdata/windows —
// the wire, the file tools with Windows paths, search, ask_user, MCP mode,
// web_fetch's refusals and bash under Job Objects. The Windows code paths
// (drive-letter and UNC path rules, LockFileEx, atomic replace, Job
// Objects, stdio handles) otherwise only compile on the project's Linux
// machines; Wine executes them.
//
// The tests run only with STEERABLE_TEST_WINE=1 and wine64 installed, so
// `go test ./...` on a machine without Wine skips them.
package winetest
