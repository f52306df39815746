package protocol

import (
	"slices"
	"strconv"
)

// Health is the result of system.ping and the payload of the ready marker.
type Health struct {
	Status          string `json:"status"` // ok | degraded | starting | shutting_down
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
	UptimeMs        int64  `json:"uptimeMs"`
	PID             int    `json:"pid"`
	GoVersion       string `json:"goVersion"`
	Platform        string `json:"platform"`
	LoadedTools     int    `json:"loadedTools"`
	// DroppedLogLines counts log lines lost because the host did not drain
	// stderr (SPEC §1: logging never blocks the request path).
	DroppedLogLines uint64 `json:"droppedLogLines"`
	// OutputQueueBytes is how much is queued for stdout, not yet read by
	// the host; DroppedNotifications counts the progress notifications
	// dropped because the queue was full.
	OutputQueueBytes     uint64 `json:"outputQueueBytes"`
	DroppedNotifications uint64 `json:"droppedNotifications"`
	Checks               Checks `json:"checks"`
}

// Health statuses.
const (
	StatusOK           = "ok"
	StatusDegraded     = "degraded"
	StatusStarting     = "starting"
	StatusShuttingDown = "shutting_down"
)

// Checks are the subsystems' conditions, by name.
type Checks map[string]Check

// AppendJSON implements JSONAppender: h as encoding/json writes it, without
// reflection (system.ping answers with it; hosts may ping often).
func (h Health) AppendJSON(b []byte) ([]byte, error) {
	return h.AppendJSONWithChecks(b, h.Checks.AppendJSON(nil)), nil
}

// AppendJSONWithChecks is AppendJSON with h.Checks already encoded (by
// Checks.AppendJSON): checks rarely change between pings, so a server may
// reuse their encoding.
func (h Health) AppendJSONWithChecks(b, checks []byte) []byte {
	b = append(b, `{"status":`...)
	b = AppendJSONString(b, h.Status)
	b = append(b, `,"version":`...)
	b = AppendJSONString(b, h.Version)
	b = append(b, `,"protocolVersion":`...)
	b = AppendJSONString(b, h.ProtocolVersion)
	b = append(b, `,"uptimeMs":`...)
	b = strconv.AppendInt(b, h.UptimeMs, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(h.PID), 10)
	b = append(b, `,"goVersion":`...)
	b = AppendJSONString(b, h.GoVersion)
	b = append(b, `,"platform":`...)
	b = AppendJSONString(b, h.Platform)
	b = append(b, `,"loadedTools":`...)
	b = strconv.AppendInt(b, int64(h.LoadedTools), 10)
	b = append(b, `,"droppedLogLines":`...)
	b = strconv.AppendUint(b, h.DroppedLogLines, 10)
	b = append(b, `,"outputQueueBytes":`...)
	b = strconv.AppendUint(b, h.OutputQueueBytes, 10)
	b = append(b, `,"droppedNotifications":`...)
	b = strconv.AppendUint(b, h.DroppedNotifications, 10)
	b = append(b, `,"checks":`...)
	b = append(b, checks...)
	return append(b, '}')
}

// AppendJSON appends the object encoding/json writes for the map, keys
// sorted.
func (c Checks) AppendJSON(b []byte) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	names := make([]string, 0, len(c))
	for name := range c {
		names = append(names, name)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, name)
		b = append(b, `:{"status":`...)
		b = AppendJSONString(b, c[name].Status)
		b = append(b, `,"message":`...)
		b = AppendJSONString(b, c[name].Message)
		b = append(b, '}')
	}
	return append(b, '}')
}

// Check is one subsystem's condition in Health.checks.
type Check struct {
	Status  string `json:"status"` // ok | warn | error
	Message string `json:"message"`
}

// Check statuses.
const (
	CheckOK    = "ok"
	CheckWarn  = "warn"
	CheckError = "error"
)
