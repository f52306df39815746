package rpc

import (
	"runtime"
	"testing"

	"steerable.dev/sidecar/protocol"
)

// TestPerCallAllocations keeps the per-call path from regrowing:
// one round trip through the whole server — frame reader, dispatcher,
// params, the tool pipeline, reply — for system.ping and for tool.invoke of
// a tool that does nothing. The ceilings are loose (about twice today's
// figures, client included) so the test never flakes; the benchmarks carry
// the real numbers (go test -bench . -benchmem ./internal/rpc).
func TestPerCallAllocations(t *testing.T) {
	for _, tc := range []struct {
		method, params string
		allocs         float64
		bytes          uint64
	}{
		{protocol.MethodPing, "", 40, 6 << 10},
		{protocol.MethodToolInvoke, noopParams, 110, 12 << 10},
	} {
		t.Run(tc.method, func(t *testing.T) {
			in, out := pipeServer(t)
			id := 0
			call := func() { id++; roundTrip(t, in, out, id, tc.method, tc.params) }
			call() // warm: schemas compiled, workers started
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			allocs := testing.AllocsPerRun(200, call)
			runtime.ReadMemStats(&after)
			perCall := (after.TotalAlloc - before.TotalAlloc) / 201
			t.Logf("%s: %.0f allocations, %d bytes per call", tc.method, allocs, perCall)
			if allocs > tc.allocs {
				t.Errorf("%s: %.0f allocations per call, ceiling %.0f", tc.method, allocs, tc.allocs)
			}
			if perCall > tc.bytes {
				t.Errorf("%s: %d bytes allocated per call, ceiling %d", tc.method, perCall, tc.bytes)
			}
		})
	}
}
