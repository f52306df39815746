package sandbox

import "os"

// NewSeatbelt finds /usr/bin/sandbox-exec.
func NewSeatbelt() Seatbelt {
	const path = "/usr/bin/sandbox-exec"
	if _, err := os.Stat(path); err != nil {
		return Seatbelt{}
	}
	return Seatbelt{Path: path}
}
