package protocol

import (
	"encoding/json"
	"strconv"
)

// Host → sidecar methods (SPEC §2).
const (
	MethodPing             = "system.ping"
	MethodShutdown         = "system.shutdown"
	MethodShutdownNow      = "system.shutdown_now"
	MethodToolList         = "tool.list"
	MethodToolInvoke       = "tool.invoke"
	MethodReadStateSeed    = "read_state.seed"
	MethodReadStateGet     = "read_state.get"
	MethodHostToolsReg     = "host_tools.register"
	MethodPluginList       = "plugin.list"
	MethodPluginEnable     = "plugin.enable"
	MethodPluginDisable    = "plugin.disable"
	MethodPluginUnload     = "plugin.unload"
	MethodPluginReload     = "plugin.reload"
	NotificationCancel     = "$/cancelRequest"
	MethodAskUserRequest   = "ask_user.request"   // sidecar → host
	MethodApprovalRequest  = "approval.request"   // sidecar → host
	MethodWebSearchRequest = "web_search.request" // sidecar → host
	NotificationReady      = "lifecycle.ready"    // sidecar → host
	NotificationShutdown   = "lifecycle.shutdown" // sidecar → host
	NotificationProgress   = "tool.progress"      // sidecar → host
)

// Views and strategies of tool.list.
const (
	ViewInventory       = "inventory"
	ViewModel           = "model"
	StrategyFull        = "full"
	StrategyMinimal     = "minimal"
	StrategyProgressive = "progressive"
)

// ToolListParams are the params of tool.list.
type ToolListParams struct {
	View     string `json:"view,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	AskUser  bool   `json:"askUser,omitempty"`
}

// ToolInvokeParams are the params of tool.invoke: the ToolCall plus the one
// invocation option. The id is optional here; a missing one is generated.
type ToolInvokeParams struct {
	ID             string          `json:"id,omitempty"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	ConsentGranted bool            `json:"consentGranted,omitempty"`
}

// ReadStateSeedParams are the params of read_state.seed. Messages stay raw:
// they are the host's durable record in OpenAI chat shape and are parsed
// leniently, entry by entry.
type ReadStateSeedParams struct {
	State    map[string]string `json:"state,omitempty"`
	Messages []json.RawMessage `json:"messages,omitempty"`
}

// ReadStateSeedResult is the result of read_state.seed.
type ReadStateSeedResult struct {
	Seeded  int `json:"seeded"`
	Skipped int `json:"skipped"`
}

// ReadStateGetResult is the result of read_state.get.
type ReadStateGetResult struct {
	State map[string]string `json:"state"`
}

// HostToolsRegisterParams are the params of host_tools.register.
type HostToolsRegisterParams struct {
	Tools []ToolDescriptor `json:"tools"`
}

// HostToolsRegisterResult is the result of host_tools.register.
type HostToolsRegisterResult struct {
	Registered int `json:"registered"`
}

// PluginParams are the params of plugin.enable/disable/unload/reload.
type PluginParams struct {
	Name string `json:"name"`
}

// PluginRecord describes one plugin and its lifecycle state (SPEC §4.7).
type PluginRecord struct {
	Name string `json:"name"`
	// Source is the kind of source that found it: installed, directory,
	// compiled-in or remote.
	Source string `json:"source"`
	// Origin is where it came from: the config file, the plugin directory
	// entry, or "compiled-in".
	Origin string `json:"origin"`
	State  string `json:"state"` // enabled | disabled | failed; unloaded only in plugin.unload's answer
	// Tools are the names it registered, prefix included, in registration
	// order; empty unless its tools are in the registry.
	Tools      []string      `json:"tools"`
	Reloadable bool          `json:"reloadable"`
	Sandbox    PluginSandbox `json:"sandbox"`
	Error      string        `json:"error,omitempty"` // why it failed, or why the last operation did
}

// Plugin states.
const (
	PluginEnabled  = "enabled"
	PluginDisabled = "disabled"
	PluginFailed   = "failed"
	PluginUnloaded = "unloaded"
)

// PluginSandbox is what a plugin's process runs under: the layer-2 backend
// and the plugin's own policy. OptOut marks the manifest's sandbox:"none".
type PluginSandbox struct {
	Backend     string   `json:"backend"` // bwrap | landlock | seatbelt | none | in-process
	Enforcement string   `json:"enforcement"`
	Network     bool     `json:"network"`
	Writable    []string `json:"writable"`
	OptOut      bool     `json:"optOut,omitempty"`
}

// PluginListResult is the result of plugin.list.
type PluginListResult struct {
	Plugins []PluginRecord `json:"plugins"`
}

// PluginResult is the result of the plugin lifecycle methods.
type PluginResult struct {
	Plugin PluginRecord `json:"plugin"`
}

// CancelParams are the params of $/cancelRequest; id is a string or number.
type CancelParams struct {
	ID json.RawMessage `json:"id"`
}

// AskUserOption is one choice of a select question.
type AskUserOption struct {
	Label       string `json:"label"`
	Value       string `json:"value,omitempty"`
	Description string `json:"description,omitempty"`
}

// AskUserQuestion is one question of ask_user, in the canonical shape a host
// renders unchanged (AskUserQuestionsPayload).
type AskUserQuestion struct {
	ID          string          `json:"id"`
	Text        string          `json:"text"`
	Type        string          `json:"type"` // select | text | password
	Options     []AskUserOption `json:"options,omitempty"`
	MultiSelect bool            `json:"multiSelect,omitempty"`
	Header      string          `json:"header,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
}

// AskUserRequestParams are the params of the reverse ask_user.request.
type AskUserRequestParams struct {
	CallID    string            `json:"callId"`
	Intro     string            `json:"intro"`
	Questions []AskUserQuestion `json:"questions"`
	Outro     string            `json:"outro,omitempty"`
}

// AskUserRequestResult is the host's answer: answers (a string, or a list of
// strings for multiSelect) or cancelled.
type AskUserRequestResult struct {
	Answers   map[string]any `json:"answers,omitempty"`
	Cancelled bool           `json:"cancelled,omitempty"`
}

// ApprovalRequestParams are the params of the reverse approval.request.
type ApprovalRequestParams struct {
	CallID    string          `json:"callId"`
	ToolName  string          `json:"toolName"`
	Arguments json.RawMessage `json:"arguments"`
	Mode      Mode            `json:"mode"`
}

// Approval decisions.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// ApprovalRequestResult is the host's decision.
type ApprovalRequestResult struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// WebSearchRequestParams are the params of the reverse web_search.request.
type WebSearchRequestParams struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"maxResults"`
	AllowedDomains []string `json:"allowedDomains"`
	BlockedDomains []string `json:"blockedDomains"`
}

// SearchResult is one web search hit.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// WebSearchRequestResult is the host's search result.
type WebSearchRequestResult struct {
	Results []SearchResult `json:"results"`
}

// ToolProgressParams are the params of the tool.progress notification.
type ToolProgressParams struct {
	CallID    string `json:"callId"`
	SessionID string `json:"sessionId,omitempty"` // bash_session, write_stdin: the shell session
	Stream    string `json:"stream"`              // stdout | stderr (a session's terminal: stdout)
	Chunk     string `json:"chunk"`
}

// ListenInfo says how the sidecar is reached.
type ListenInfo struct {
	Transport string `json:"transport"`
}

// LifecycleReadyParams are the params of lifecycle.ready.
type LifecycleReadyParams struct {
	Version         string     `json:"version"`
	ProtocolVersion string     `json:"protocolVersion"`
	PID             int        `json:"pid"`
	ListenInfo      ListenInfo `json:"listenInfo"`
}

// AppendJSON implements JSONAppender: lifecycle.ready is the first frame of
// every session, and encoding/json's first use of a type costs start-up
// time.
func (p LifecycleReadyParams) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"version":`...)
	b = AppendJSONString(b, p.Version)
	b = append(b, `,"protocolVersion":`...)
	b = AppendJSONString(b, p.ProtocolVersion)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(p.PID), 10)
	b = append(b, `,"listenInfo":{"transport":`...)
	b = AppendJSONString(b, p.ListenInfo.Transport)
	return append(b, "}}"...), nil
}

// LifecycleShutdownParams are the params of lifecycle.shutdown.
type LifecycleShutdownParams struct {
	Reason string `json:"reason"` // normal | eof | shutdown_now | signal
}
