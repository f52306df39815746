//go:build linux && (amd64 || arm64)

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The filters end in returns only, and every jump lands inside them.
func TestSocketFilterIsWellFormed(t *testing.T) {
	for _, allowUnix := range []bool{false, true} {
		prog := socketFilter(allowUnix)
		for i, ins := range prog {
			if ins.Code&0x07 == unix.BPF_JMP {
				for _, off := range []uint8{ins.Jt, ins.Jf} {
					if i+1+int(off) >= len(prog) {
						t.Errorf("allowUnix=%v: instruction %d jumps past the end", allowUnix, i)
					}
				}
			}
		}
		if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K {
			t.Errorf("allowUnix=%v: the program does not end in a return: %+v", allowUnix, last)
		}
		if b := socketFilterBytes(allowUnix); len(b) != 8*len(prog) {
			t.Errorf("allowUnix=%v: %d bytes for %d instructions", allowUnix, len(b), len(prog))
		}
	}
}
