package launch

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWatchGroups(t *testing.T) {
	in := "+100\n+200\n-100\n+300\n+1\n+0\n-x\n+\n\n+-5\n+400\n-400\n+300\n"
	got := watchGroups(strings.NewReader(in))
	slices.Sort(got)
	if diff := cmp.Diff([]int{200, 300}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
