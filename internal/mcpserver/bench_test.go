package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmarks drive the server over its stdio transport with
// hand-written frames, as `make bench` does, so the figure is the server's
// (the Go SDK client would add its own decoding).
func benchCalls(b *testing.B, frame string) { benchWindow(b, frame, 1) }

// benchWindow keeps window calls in flight, as `make bench`'s 64-in-flight
// figure does.
func benchWindow(b *testing.B, frame string, window int) {
	t := &testing.T{}
	h := newServer(t, setup{})
	writeFile(t, filepath.Join(h.dir, "page.txt"), strings.Repeat("0123456789abcdef", 255)+"0123456789abcde\n")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go h.srv.Serve(context.Background(), &StreamTransport{In: inR, Out: outW, Log: testLog(t)})
	defer inW.Close()
	out := bufio.NewReaderSize(outR, 1<<20)
	fmt.Fprintf(inW, initFrame+"\n", "0")
	out.ReadBytes('\n')
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	slots := make(chan struct{}, window)
	go func() {
		for i := range b.N {
			slots <- struct{}{}
			fmt.Fprintf(inW, frame+"\n", i+1)
		}
	}()
	b.ResetTimer()
	for range b.N {
		line, err := out.ReadBytes('\n')
		if err != nil || strings.Contains(string(line), `"isError":true`) || strings.Contains(string(line), `"error"`) {
			b.Fatalf("%s %v", line, err)
		}
		<-slots
	}
}

// BenchmarkReadFile is read_file of a 4 KiB file: transport, SDK, server,
// dispatcher and the file tool.
func BenchmarkReadFile(b *testing.B) {
	benchCalls(b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"page.txt"}}}`)
}

// BenchmarkPing is the floor of the same path: the SDK's ping.
func BenchmarkPing(b *testing.B) {
	benchCalls(b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`)
}

// BenchmarkReadFilePipelined is read_file with 64 calls in flight.
func BenchmarkReadFilePipelined(b *testing.B) {
	benchWindow(b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"page.txt"}}}`, 64)
}
