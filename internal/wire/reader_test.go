package wire

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func readAll(t *testing.T, r *Reader) (frames []string, errs []error) {
	t.Helper()
	for {
		f, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			return frames, errs
		case err != nil:
			errs = append(errs, err)
			var tl *TooLargeError
			if !errors.As(err, &tl) && !errors.Is(err, ErrBadHeader) {
				t.Fatalf("input error %v", err)
			}
		case strings.TrimSpace(string(f)) != "":
			frames = append(frames, strings.TrimSpace(string(f)))
		}
	}
}

func lsp(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestReaderOversizedFrameKeepsItsID(t *testing.T) {
	pad := strings.Repeat("y", 200<<10) // larger than the bufio buffer and the head kept
	head := `{"jsonrpc":"2.0","id":9,"method":"tool.invoke","params":{"c":"` + pad + `"}}`
	tail := `{"jsonrpc":"2.0","method":"tool.invoke","params":{"c":"` + pad + `"},"id":"t"}`
	ok := `{"jsonrpc":"2.0","id":1,"method":"system.ping"}`
	for _, tt := range []struct{ framing, input string }{
		{FramingNewline, head + "\n" + ok + "\n" + tail + "\n" + strings.Repeat("z", 300) + "\n" + ok},
		{FramingContentLength, lsp(head) + lsp(ok) + lsp(tail) + lsp(strings.Repeat("z", 300)) + lsp(ok)},
	} {
		t.Run(tt.framing, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.input), tt.framing, 256, "STEERABLE_MAX_FRAME_BYTES", nil)
			frames, errs := readAll(t, r)
			if len(frames) != 2 || frames[0] != ok || frames[1] != ok {
				t.Errorf("frames = %q", frames)
			}
			wantIDs := []string{"9", `"t"`, ""}
			if len(errs) != len(wantIDs) {
				t.Fatalf("errors = %v", errs)
			}
			for i, err := range errs {
				var tl *TooLargeError
				if !errors.As(err, &tl) || string(tl.ID) != wantIDs[i] || tl.Limit != 256 {
					t.Errorf("error %d = %#v, want id %q", i, err, wantIDs[i])
				}
				if !strings.Contains(err.Error(), "256-byte frame limit (STEERABLE_MAX_FRAME_BYTES)") {
					t.Errorf("message %q does not name the limit and the variable", err)
				}
			}
			var tl *TooLargeError
			errors.As(errs[0], &tl)
			if want := int64(len(head)); tl.Size < want {
				t.Errorf("size = %d, want ≥ %d", tl.Size, want)
			}
		})
	}
}

func TestReaderContentLengthHeaders(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"method":"system.ping"}`
	input := "\r\n" + "Content-Type: x\r\n" + lsp(ok) + "X-Other: 1\r\n\r\n" + "Content-Length: " + strings.Repeat("9", 5000) + "\r\n\r\n" + lsp(ok)
	frames, errs := readAll(t, NewReader(strings.NewReader(input), FramingContentLength, 1024, "X", nil))
	if len(frames) != 2 || len(errs) != 2 || !errors.Is(errs[0], ErrBadHeader) || !errors.Is(errs[1], ErrBadHeader) {
		t.Errorf("frames %q, errors %v", frames, errs)
	}
}

func TestReaderLastLineWithoutNewline(t *testing.T) {
	frames, errs := readAll(t, NewReader(strings.NewReader("a\r\n\nb"), FramingNewline, 16, "X", nil))
	if len(errs) != 0 || strings.Join(frames, ",") != "a,b" {
		t.Errorf("frames %q, errors %v", frames, errs)
	}
}

// FuzzReader: no input panics or loops, under either framing.
func FuzzReader(f *testing.F) {
	f.Add([]byte(lsp(`{"id":1}`)+"Content-Length: 99999\r\n\r\n{\"id\":2"), true)
	f.Add([]byte(`{"id":1,"x":"`+strings.Repeat("a", 100)+"\"}\n{}\n"), false)
	f.Fuzz(func(t *testing.T, in []byte, cl bool) {
		framing := FramingNewline
		if cl {
			framing = FramingContentLength
		}
		r := NewReader(strings.NewReader(string(in)), framing, 64, "X", nil)
		for i := 0; i <= len(in)+1; i++ {
			if _, err := r.Next(); err != nil && !errors.Is(err, ErrBadHeader) {
				var tl *TooLargeError
				if !errors.As(err, &tl) {
					return
				}
			}
		}
		t.Fatalf("no end after %d frames of %d bytes", len(in)+1, len(in))
	})
}
