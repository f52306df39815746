package main

import (
	"testing"
	"time"
)

// The interpreter search runs python3 in the sandbox, so, like the sandbox
// probe, it starts only once the ready marker is out (probeSandbox): its
// forks would compete with start-up for the CPU. Before, building the
// tools started it.
func TestRunCodeSearchStartsAfterReady(t *testing.T) {
	t.Setenv("STEERABLE_RUN_CODE", "1")
	a := bootForTest(t, true)
	if a.runCode == nil {
		t.Skip("no python3 on PATH: run_code is not wired")
	}
	select {
	case <-a.runCode.Checked():
		t.Fatal("the interpreter search ran before the ready marker")
	case <-time.After(300 * time.Millisecond): // with the sandbox off it would end in milliseconds
	}
	a.probeSandbox()
	select {
	case <-a.runCode.Checked():
	case <-time.After(30 * time.Second):
		t.Fatal("probeSandbox did not start the interpreter search")
	}
}
