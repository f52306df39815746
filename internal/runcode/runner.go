package runcode

import _ "embed"

// runnerSource is the Python side of the bridge (runner.py), given to the
// interpreter on stdin, so nothing is written to disk and the process
// table shows a short command line.
//
//go:embed runner.py
var runnerSource []byte
