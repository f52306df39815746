package sandbox

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// A child keeps its parent-death signal's thread however many children are
// started after it, and whatever Go does with its idle threads: the
// spawner's threads never retire while the session is open.
func TestALongChildOutlivesTheCallsAfterIt(t *testing.T) {
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			long, err := s.Start(Command{Argv: []string{"sleep", "30"}, Dir: s.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer long.Kill()
			for range 10 {
				if res := run(t, s, `true`, RunOptions{}); res.ExitCode != 0 {
					t.Fatalf("a call failed: %+v", res)
				}
			}
			runtime.GC()
			time.Sleep(100 * time.Millisecond)
			select {
			case <-long.Done():
				exit, _ := long.Wait()
				t.Fatalf("the long child ended: %+v", exit)
			default:
			}
			if _, err := s.Run(context.Background(), Command{Argv: []string{"true"}, Dir: s.TempDir()}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
