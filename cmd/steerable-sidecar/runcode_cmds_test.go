package main

// Script commands for the run_code scripts:
//
//	path-without PROGRAM VAR  set $VAR to the script's PATH minus every directory that holds PROGRAM
//	                          (a sidecar whose PATH has no python3, or only a fake one)

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	sessionCmds["path-without"] = cmdPathWithout
}

func cmdPathWithout(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: path-without PROGRAM VAR")
	}
	var keep []string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, args[0])); err != nil {
			keep = append(keep, dir)
		}
	}
	ts.Setenv(args[1], strings.Join(keep, string(filepath.ListSeparator)))
}
