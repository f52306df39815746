package main

import (
	"os"
	"regexp"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/checkpoint"
)

// The checkpoint scripts' commands:
//
//	capture VAR REGEXP   set $VAR to REGEXP's first group in the last command's stdout
//	                     (a restore's callId, to undo the restore)
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture VAR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("capture: no match for %q with a group in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// scriptCheckpointFault, for SIDECAR_TEST_TEAR_RECORD=N, writes the first
// half of the Nth append to the checkpoint store and SIGKILLs the process
// before the rest: the torn record a crash mid-append leaves.
func scriptCheckpointFault(at string) func() checkpoint.Fault {
	n, err := strconv.Atoi(at)
	if err != nil || n <= 0 {
		return nil
	}
	return func() checkpoint.Fault {
		seen := 0
		return func(f *os.File, off int64, frames []byte) {
			if seen++; seen != n {
				return
			}
			_, _ = f.WriteAt(frames[:len(frames)/2], off)
			self, _ := os.FindProcess(os.Getpid())
			_ = self.Kill() // SIGKILL: no deferred code runs
			select {}
		}
	}
}
