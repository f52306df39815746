package shellsession

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		ctx := context.Background()
		start := time.Now()
		res, err := m.Open(ctx, "cd /tmp && export FOO=bar; echo hi", req("", 5*time.Second))
		t.Logf("open %v %+v %v", time.Since(start), res, err)
		for _, c := range []string{"pwd; echo $FOO\n", "python3 -i\n", "print(6*7)\n", "exit()\n", "sleep 100\n", "\x03", "echo $OPENAI_API_KEY-x\n", "exit 3\n"} {
			start := time.Now()
			r, err := m.Write(ctx, res.ID, req(c, 3*time.Second))
			t.Logf("%q → %v %+v %v", c, time.Since(start), r, err)
		}
		_ = strings.Contains
	})
}
