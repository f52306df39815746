//go:build linux && (amd64 || arm64)

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The filters end in returns only, and every jump lands inside them.
func TestSocketFilterIsWellFormed(t *testing.T) {
	for _, p := range []Policy{{Network: true}, {}, {UnixSockets: true}} {
		prog := commandFilter(p)
		for i, ins := range prog {
			if ins.Code&0x07 == unix.BPF_JMP {
				for _, off := range []uint8{ins.Jt, ins.Jf} {
					if i+1+int(off) >= len(prog) {
						t.Errorf("policy %+v: instruction %d jumps past the end", p, i)
					}
				}
			}
		}
		if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K {
			t.Errorf("policy %+v: the program does not end in a return: %+v", p, last)
		}
		if b := commandFilterBytes(p); len(b) != 8*len(prog) {
			t.Errorf("policy %+v: %d bytes for %d instructions", p, len(b), len(prog))
		}
	}
}
