package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeatbeltProfile(t *testing.T) {
	tests := []struct {
		policy Policy
		want   string
	}{
		{Policy{WritableRoots: []string{"/w"}}, `(version 1)
(allow default)
(deny file-write*)
(allow file-write*
    (subpath (param "WRITABLE_ROOT_0"))
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/full"))
(deny network*)
`},
		{Policy{WritableRoots: []string{"/w", "/t"}, Network: true}, `(version 1)
(allow default)
(deny file-write*)
(allow file-write*
    (subpath (param "WRITABLE_ROOT_0"))
    (subpath (param "WRITABLE_ROOT_1"))
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/full"))
`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SeatbeltProfile(tt.policy)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.policy, diff)
		}
	}
}

// Paths reach the profile as parameters: a root whose name is SBPL cannot
// change the profile.
func TestSeatbeltWrapPassesRootsAsParameters(t *testing.T) {
	evil := `/w") (allow network*) ("`
	p := Policy{WritableRoots: []string{"/tmp/s", evil}}
	got, err := Seatbelt{Path: "/usr/bin/sandbox-exec"}.Wrap(Cmd{Path: "/bin/bash", Args: []string{"bash", "-c", "true"}, Dir: "/w"}, p)
	if err != nil {
		t.Fatal(err)
	}
	want := Cmd{Path: "/usr/bin/sandbox-exec", Dir: "/w", Args: []string{"sandbox-exec", "-p", SeatbeltProfile(p.normalized()),
		"-D", "WRITABLE_ROOT_0=/tmp/s", "-D", "WRITABLE_ROOT_1=" + evil, "--", "/bin/bash", "-c", "true"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := (Seatbelt{}).Available(); err == nil {
		t.Error("seatbelt without sandbox-exec claims to be available")
	}
}
