package benchkit

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSS is the resident set (VmRSS) of process pid now, in bytes.
func RSS(pid int) (int64, error) { return statusBytes(pid, "VmRSS") }

// PeakRSS is the high-water resident set (VmHWM) of process pid, in bytes.
func PeakRSS(pid int) (int64, error) { return statusBytes(pid, "VmHWM") }

// statusBytes reads a "Field:   N kB" line of /proc/PID/status.
func statusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == field+":" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s line", pid, field)
}
