// Command floor is the start-up floor for the core benchmark: a Go program
// that writes one stderr line and exits, which is all a process can do
// faster than the sidecar's ready marker.
package main

import "os"

func main() { os.Stderr.WriteString("__SIDECAR_READY__:{}\n") }
