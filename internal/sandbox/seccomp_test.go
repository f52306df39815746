//go:build linux && (amd64 || arm64)

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The filter ends in returns only, and every jump lands inside it.
func TestNoNetworkProgramIsWellFormed(t *testing.T) {
	prog := noNetworkProgram()
	for i, ins := range prog {
		if ins.Code&0x07 == unix.BPF_JMP {
			for _, off := range []uint8{ins.Jt, ins.Jf} {
				if i+1+int(off) >= len(prog) {
					t.Errorf("instruction %d jumps past the end", i)
				}
			}
		}
	}
	if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K {
		t.Errorf("the program does not end in a return: %+v", last)
	}
}
