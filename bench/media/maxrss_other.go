//go:build !linux

package main

import "os"

// maxRSS is not measured here: the bench's figures are Linux's.
func maxRSS(*os.ProcessState) int64 { return 0 }
