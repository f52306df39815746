package main

import (
	"io"
	"os"
)

// pollable returns f as it is. Windows has no text mode below the C
// runtime, which Go does not use: stdin and stdout are read and written as
// raw bytes, so a frame's "\n" is never turned into "\r\n" and a "\x1a" is
// never end of file (binary mode, as the protocol needs).
func pollable(f *os.File) *os.File { return f }

// input is stdin as the server reads it. Go reads a console or pipe stdin
// with a synchronous ReadFile, and closing the handle waits until that
// read returns: Go cancels it with CancelIoEx first, but a synchronous
// read is not always cancellable that way (Wine leaves it pending until
// the host writes or closes its end), so a shutdown would hang until the
// host closed stdin. Closing it in the background lets the server finish
// and the process exit, which ends the read.
func input(f *os.File) io.Reader { return backgroundClose{f} }

type backgroundClose struct{ *os.File }

func (b backgroundClose) Close() error {
	go b.File.Close()
	return nil
}
