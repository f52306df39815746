package rpc

import (
	"bufio"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
)

// benchServer serves a bare server over in-memory pipes and returns its
// stdin and its stdout, past lifecycle.ready.
func benchServer(b *testing.B) (*io.PipeWriter, *bufio.Reader) {
	b.Helper()
	reg := tools.NewRegistry()
	srv, err := NewServer(Options{Version: "b", MaxFrameBytes: 1 << 20, MaxInflight: 64, ShutdownGrace: time.Second, Log: zerolog.Nop()},
		Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, zerolog.Nop())}, NewPeer(zerolog.Nop()))
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { srv.Serve(inR, outW); outW.Close() }()
	r := bufio.NewReaderSize(outR, 1<<20)
	r.ReadString('\n') // lifecycle.ready
	return inW, r
}

// BenchmarkPingPipelined measures system.ping through the whole server
// (stream, library, dispatcher, reply) with 64 requests in flight.
func BenchmarkPingPipelined(b *testing.B) {
	inW, r := benchServer(b)
	slots := make(chan struct{}, 64)
	done := make(chan struct{})
	b.ResetTimer()
	go func() {
		for i := 0; i < b.N; i++ {
			if _, err := r.ReadString('\n'); err != nil {
				b.Error(err)
				break
			}
			<-slots
		}
		close(done)
	}()
	w := bufio.NewWriter(inW)
	for i := 0; i < b.N; i++ {
		select {
		case slots <- struct{}{}:
		default:
			w.Flush()
			slots <- struct{}{}
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"system.ping"}` + "\n")
	}
	w.Flush()
	<-done
	b.StopTimer()
	inW.Close()
	io.Copy(io.Discard, r)
}

// BenchmarkPingSequential measures one system.ping round trip at a time.
func BenchmarkPingSequential(b *testing.B) {
	inW, r := benchServer(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"system.ping"}`+"\n")
		if _, err := r.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	inW.Close()
	io.Copy(io.Discard, r)
}
