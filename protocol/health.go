package protocol

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
	DroppedLogLines uint64           `json:"droppedLogLines"`
	Checks          map[string]Check `json:"checks"`
}

// Health statuses.
const (
	StatusOK           = "ok"
	StatusDegraded     = "degraded"
	StatusStarting     = "starting"
	StatusShuttingDown = "shutting_down"
)

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
