// Package config builds the sidecar's one validated Config from the
// environment. It is the only package that reads STEERABLE_* variables (and
// the proxy variables); everything below cmd receives plain values.
//
// # One struct
//
// Every variable is declared once, as a field of Config with struct tags:
// its name (env), default (envDefault), allowed range (range:"min..max", in
// the variable's unit) or choices (oneof:"a|b"), whether it is
// security-relevant (security), the feature it belongs to, and its help
// line. github.com/caarlos0/env parses the fields (env, envDefault); Vars
// reads the other tags into the table that --help and docs/configuration.md print, so
// the documentation cannot drift from the parser.
//
// # Values
//
// Beside env's own parsers (booleans take strconv's spellings, ints are
// 32-bit), the types of types.go have custom parsers, passed as the
// library's FuncMap: Millis (milliseconds, or a Go duration such as 30s),
// Bytes and MiB (an integer, or one with a unit such as 16MiB or 1GB), List
// (comma-separated, items trimmed, empty items dropped), Path and PathList
// (a leading ~, $HOME or ${HOME} is the home directory: paths.go). An empty
// variable means its default, set or not. No variable is required (env's
// required and notEmpty are not used): a host spawns the sidecar with
// whatever environment it has, and every variable has a working default.
//
// The library aggregates every value that does not parse into one error;
// Load turns it into Problems, adds the values outside their range or
// choices, and parses once more without the bad variables so that each
// takes its default. A STEERABLE_ name that is no variable is a Problem too,
// with the nearest real name: the environment has no other way to tell a
// user that STEERABLE_SANBOX=bwrap did nothing.
//
// # Postures
//
// Load never fails: it returns a usable Config and the list of Problems.
// The caller picks the posture (Fatal, SPEC §4.3): `serve` and `mcp` log
// each problem and degrade the feature it belongs to (a bad web bound
// leaves the web pair unregistered, checks.web = error; another value takes
// its default, checks.config = warn; an unknown name is a warning), while
// `call` and --strict-config exit 2 on any problem, unknown names included.
//
// Security-relevant variables stop the boot in every posture. They are the
// ones whose default would silently change what a command or a tool may
// reach: the sandbox backend and its requirement, network, UNIX sockets,
// the layer-1 claim, the deny and allow lists, the environment policy and
// its pass list, the per-call limits and the binaries the sandbox runs
// (bwrap, bash); the file tools' confinement and read-before-write gate; the
// approval mode. They carry security:"true" in Config; a test keeps every
// sandbox variable classified. The web variables are not among them: an
// invalid one already fails closed (the web pair is not registered).
package config
