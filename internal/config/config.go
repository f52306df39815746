package config

import (
	"strings"
	"unicode"
)

// Config is every setting of one sidecar process.
type Config struct {
	// Core protocol and lifecycle.
	Workspace        Path `env:"STEERABLE_WORKSPACE" feature:"core" help:"workspace root; paths resolve against it (default: --cwd, else the process cwd)"`
	WorkspaceConfine bool `env:"STEERABLE_WORKSPACE_CONFINE" envDefault:"true" security:"true" feature:"files" help:"refuse paths that resolve outside the workspace (0 turns confinement off)"`
	// MaxFrameBytes is derived when unset (FrameLimit).
	MaxFrameBytes       Bytes  `env:"STEERABLE_MAX_FRAME_BYTES" range:"0..1073741824" feature:"core" help:"largest incoming frame; a longer one is discarded and answered -32600 with its own id (default, and 0: 6 × STEERABLE_FILE_MAX_BYTES + 1 MiB, so a write_file of the largest file fits however its content escapes in JSON; set lower, this limit binds first)"`
	MaxOutputQueueBytes Bytes  `env:"STEERABLE_MAX_OUTPUT_QUEUE_BYTES" envDefault:"8388608" range:"1048576..1073741824" feature:"core" help:"frames queued for a host that does not read stdout; beyond it replies wait, reverse calls and notifications wait as long as their context, progress notifications are dropped (system.ping counts them)"`
	MaxInflight         int    `env:"STEERABLE_MAX_INFLIGHT" envDefault:"64" range:"1..4096" feature:"core" help:"tool calls running at once; as many again queue, then -32003 busy"`
	ShutdownGraceMs     Millis `env:"STEERABLE_SHUTDOWN_GRACE_MS" envDefault:"5000" range:"0..600000" feature:"core" help:"how long system.shutdown and EOF let in-flight calls finish before cancelling them"`
	Approvals           string `env:"STEERABLE_APPROVALS" envDefault:"off" oneof:"off|host" security:"true" feature:"core" help:"host: ask the host (approval.request) before local/destructive tools run without consentGranted"`

	// File tools.
	RequireReadBeforeWrite bool  `env:"STEERABLE_REQUIRE_READ_BEFORE_WRITE" envDefault:"true" security:"true" feature:"files" help:"hard gate: refuse to overwrite an existing file this session never read (0 opts out)"`
	FileMaxBytes           Bytes `env:"STEERABLE_FILE_MAX_BYTES" envDefault:"67108864" range:"1024..1073741824" feature:"files" help:"largest file write_file writes and edit_file/apply_patch load and rewrite, and the largest image, PDF or notebook read_file loads (it streams text files of any size)"`
	// StateDir is derived when unset (state.go).
	StateDir Path `env:"STEERABLE_STATE_DIR" feature:"files" help:"absolute directory for state that outlives a crash: the rollback journal of multi-file apply_patch and the checkpoint store (default: $XDG_STATE_HOME/steerable-sidecar, else $HOME/.local/state/steerable-sidecar)"`
	// Checkpoints and undo (internal/checkpoint).
	Checkpoints     bool `env:"STEERABLE_CHECKPOINTS" envDefault:"true" feature:"files" help:"record every change the file tools make, for checkpoint.restore and tool.undo (0 turns recording and the methods off)"`
	CheckpointMaxMB MiB  `env:"STEERABLE_CHECKPOINT_MAX_MB" envDefault:"512" range:"1..1048576" feature:"files" help:"size of the checkpoint store per workspace, in MiB; past it the oldest records go first"`

	// read_file of images and PDFs.
	ImageMaxEdge  int   `env:"STEERABLE_IMAGE_MAX_EDGE" envDefault:"1568" range:"64..16384" feature:"files" help:"longest edge, in pixels, of an image read_file returns; a larger one is scaled down, aspect kept"`
	ImageMaxBytes Bytes `env:"STEERABLE_IMAGE_MAX_BYTES" envDefault:"3932160" range:"65536..67108864" feature:"files" help:"largest encoded image read_file returns (3.75 MiB); a larger one is re-encoded (JPEG at falling quality, then smaller)"`
	PDFDocument   bool  `env:"STEERABLE_PDF_DOCUMENT" envDefault:"false" feature:"files" help:"read_file of a PDF also returns the selected pages as a document block, for a model that reads PDFs natively"`

	// grep and glob.
	SearchIgnore List `env:"STEERABLE_SEARCH_IGNORE" envDefault:".git/,node_modules/,__pycache__/,.venv/,venv/,dist/,build/,target/" feature:"files" help:"gitignore patterns grep and glob skip beyond the workspace's own ignore files, ranked below them (- skips nothing more)"`

	// Sandbox and shell.
	Sandbox            string `env:"STEERABLE_SANDBOX" envDefault:"auto" oneof:"auto|bwrap|landlock|seatbelt|none" security:"true" feature:"sandbox" help:"layer-2 sandbox backend for bash and run_code; auto probes at boot"`
	SandboxNetwork     bool   `env:"STEERABLE_SANDBOX_NETWORK" envDefault:"false" security:"true" feature:"sandbox" help:"let sandboxed commands use the network"`
	SandboxRequire     bool   `env:"STEERABLE_SANDBOX_REQUIRE" envDefault:"false" security:"true" feature:"sandbox" help:"no working backend becomes the terminal error sandbox_unavailable instead of running unsandboxed"`
	SidecarConfined    bool   `env:"STEERABLE_SIDECAR_CONFINED" envDefault:"false" security:"true" feature:"sandbox" help:"the host already runs the sidecar under an OS sandbox (layer 1); run_code inherits it"`
	BashMaxTimeoutMs   Millis `env:"STEERABLE_BASH_MAX_TIMEOUT_MS" envDefault:"600000" range:"1000..86400000" feature:"sandbox" help:"ceiling for bash timeout_ms (the default per call is 120000)"`
	BashMaxOutputBytes Bytes  `env:"STEERABLE_BASH_MAX_OUTPUT_BYTES" envDefault:"1048576" range:"4096..268435456" feature:"sandbox" help:"bytes kept per output stream of bash and of run_code programs (head and tail; the middle is elided)"`

	// Sandbox policy: deny-read, sockets, environment, per-call limits.
	SandboxUnixSockets bool     `env:"STEERABLE_SANDBOX_UNIX_SOCKETS" envDefault:"false" security:"true" feature:"sandbox" help:"with the network off, still let sandboxed commands create UNIX sockets (a local agent socket)"`
	SandboxDenyRead    PathList `env:"STEERABLE_SANDBOX_DENY_READ" security:"true" feature:"sandbox" help:"paths (a wildcard only in the last component) no tool reads, commands and file tools alike, besides the default credential stores"`
	SandboxAllowRead   PathList `env:"STEERABLE_SANDBOX_ALLOW_READ" security:"true" feature:"sandbox" help:"paths whose deny-list entries (those equal to or inside one) are lifted; docs/tools.md lists the entries (e.g. ~/.npmrc)"`
	SandboxEnv         string   `env:"STEERABLE_SANDBOX_ENV" envDefault:"inherit" oneof:"inherit|core" security:"true" feature:"sandbox" help:"inherit: the sidecar's environment minus credentials; core: only PATH, HOME, USER, LANG, LC_*, TERM, TMPDIR, SHELL"`
	SandboxEnvPass     List     `env:"STEERABLE_SANDBOX_ENV_PASS" security:"true" feature:"sandbox" help:"variable names every sandboxed command gets, whatever STEERABLE_SANDBOX_ENV and the scrubbing say"`
	SandboxMaxProcs    int      `env:"STEERABLE_SANDBOX_MAX_PROCS" envDefault:"512" range:"0..1048576" security:"true" feature:"sandbox" help:"processes (and threads) one sandboxed call may run at once (0 = no limit)"`
	SandboxMaxMemoryMB MiB      `env:"STEERABLE_SANDBOX_MAX_MEMORY_MB" envDefault:"4096" range:"0..1048576" security:"true" feature:"sandbox" help:"memory one sandboxed call may use, in MiB (0 = no limit)"`
	SandboxTmpMB       MiB      `env:"STEERABLE_SANDBOX_TMP_MB" envDefault:"1024" range:"0..1048576" security:"true" feature:"sandbox" help:"size of a command's private /tmp under bwrap, in MiB (a tmpfs; writes beyond fail with ENOSPC; 0 = the kernel's default, half the RAM)"`
	BwrapPath          Path     `env:"STEERABLE_BWRAP_PATH" security:"true" feature:"sandbox" help:"bubblewrap binary (absolute path); default: the first of /usr/bin, /bin, /usr/local/bin that has it, never PATH"`
	BashPath           Path     `env:"STEERABLE_BASH_PATH" security:"true" feature:"sandbox" help:"the shell bash runs (absolute path); default: bash on PATH, else sh; on Windows Git for Windows' or MSYS2's bash.exe (never WSL's)"`

	// Shell sessions (bash_session, write_stdin).
	SessionBufferBytes Bytes  `env:"STEERABLE_SESSION_BUFFER_BYTES" envDefault:"1048576" range:"4096..268435456" feature:"sessions" help:"text kept per shell session between reads; older output is dropped and the next read says how many bytes"`
	MaxSessions        int    `env:"STEERABLE_MAX_SESSIONS" envDefault:"8" range:"0..256" feature:"sessions" help:"shell sessions open at once (0 leaves bash_session and write_stdin unregistered)"`
	SessionIdleMs      Millis `env:"STEERABLE_SESSION_IDLE_MS" envDefault:"1800000" range:"1000..86400000" feature:"sessions" help:"a shell session that goes this long without a call is ended (output does not count)"`

	// Web tools (tools-spec "Bounds").
	Web Web

	// ask_user.
	AskUserTimeoutMs Millis `env:"STEERABLE_ASK_USER_TIMEOUT_MS" envDefault:"0" range:"0..86400000" feature:"ask_user" help:"bound on waiting for the person's answer (0 = wait)"`

	// run_code.
	RunCode          bool   `env:"STEERABLE_RUN_CODE" envDefault:"false" feature:"run_code" help:"register run_code (model-written Python calling the other tools, under the sandbox); needs python3 >= 3.9 on PATH"`
	RunCodeTimeoutMs Millis `env:"STEERABLE_RUN_CODE_TIMEOUT_MS" envDefault:"60000" range:"1000..3600000" feature:"run_code" help:"wall-clock limit of one run_code program, nested calls included; then its process tree is killed"`
	RunCodeMaxCalls  int    `env:"STEERABLE_RUN_CODE_MAX_CALLS" envDefault:"32" range:"1..1000" feature:"run_code" help:"nested tool calls one run_code program may make; the next is refused, and one more ends the program"`
	RunCodeMaxResult Bytes  `env:"STEERABLE_RUN_CODE_MAX_RESULT_BYTES" envDefault:"1048576" range:"1024..67108864" feature:"run_code" help:"largest return value of a run_code program, in bytes of JSON"`

	// Plugins.
	PluginDir             Path   `env:"STEERABLE_PLUGIN_DIR" feature:"plugins" help:"directory of plugins, loaded in filename order: executables (MCP servers over stdio) or NAME.json manifests; entries starting with _ or . are skipped"`
	PluginsConfig         Path   `env:"STEERABLE_PLUGINS_CONFIG" feature:"plugins" help:"JSON file of installed plugins {\"plugins\": {NAME: {command, args, env, cwd, toolPrefix, exposure, sandbox}}}; the mcpServers key of Claude Desktop and Cursor and the servers key of VS Code work too"`
	PluginsDegrade        bool   `env:"STEERABLE_PLUGINS_DEGRADE" envDefault:"false" feature:"plugins" help:"a plugin that fails at boot is reported in checks.plugins and the others load, instead of exit 2"`
	PluginStartTimeoutMs  Millis `env:"STEERABLE_PLUGIN_START_TIMEOUT_MS" envDefault:"20000" range:"100..600000" feature:"plugins" help:"a plugin's process start to its tools listed (initialize and tools/list)"`
	PluginCallTimeoutMs   Millis `env:"STEERABLE_PLUGIN_CALL_TIMEOUT_MS" envDefault:"120000" range:"100..86400000" feature:"plugins" help:"one plugin tool call; then it is cancelled on the plugin (notifications/cancelled)"`
	PluginMaxOutputBytes  Bytes  `env:"STEERABLE_PLUGIN_MAX_OUTPUT_BYTES" envDefault:"1048576" range:"4096..268435456" feature:"plugins" help:"text (and structured content) kept per plugin tool result; longer text keeps its head and tail"`
	PluginMaxMessageBytes Bytes  `env:"STEERABLE_PLUGIN_MAX_MESSAGE_BYTES" envDefault:"16777216" range:"65536..1073741824" feature:"plugins" help:"largest message a plugin may send; a longer reply becomes a follow-up error, the plugin stays up"`
	PluginMaxTools        int    `env:"STEERABLE_PLUGIN_MAX_TOOLS" envDefault:"2000" range:"1..100000" feature:"plugins" help:"tools one plugin may list; more fails its load"`

	// Language servers (code intelligence).
	LSPConfig            Path   `env:"STEERABLE_LSP_CONFIG" feature:"lsp" help:"JSON file of language servers {\"lspServers\": {NAME: {command, args, env, languages, filePatterns, rootMarkers, initializationOptions, settings, settleMs}}}; a NAME replaces the built-in default of that name (go, python, typescript, rust, c)"`
	LSPDefaults          bool   `env:"STEERABLE_LSP_DEFAULTS" envDefault:"true" feature:"lsp" help:"use the built-in servers (gopls, pyright-langserver or basedpyright-langserver, typescript-language-server, rust-analyzer, clangd) found on PATH outside every writable root"`
	LSPIdleMs            Millis `env:"STEERABLE_LSP_IDLE_MS" envDefault:"600000" range:"0..86400000" feature:"lsp" help:"a language server unused this long is stopped (0 = never); it starts again on next need"`
	LSPStartTimeoutMs    Millis `env:"STEERABLE_LSP_START_TIMEOUT_MS" envDefault:"20000" range:"100..600000" feature:"lsp" help:"a language server's process start to its initialize answered; then it is killed and the error reported"`
	LSPRequestTimeoutMs  Millis `env:"STEERABLE_LSP_REQUEST_TIMEOUT_MS" envDefault:"15000" range:"100..600000" feature:"lsp" help:"one lsp tool request to a running server"`
	LSPDiagnosticsWaitMs Millis `env:"STEERABLE_LSP_DIAGNOSTICS_WAIT_MS" envDefault:"1500" range:"0..60000" feature:"lsp" help:"how long write_file, edit_file, apply_patch and notebook_edit wait for the server's diagnostics of the files they changed; then data.diagnostics says pending:true"`

	// MCP server mode (steerable-sidecar mcp).
	MCPStrategy        string `env:"STEERABLE_MCP_STRATEGY" envDefault:"full" oneof:"full|minimal|progressive" feature:"mcp" help:"tools/list strategy of steerable-sidecar mcp (--strategy wins)"`
	MCPResults         string `env:"STEERABLE_MCP_RESULTS" envDefault:"model" oneof:"model|json" feature:"mcp" help:"tool results of steerable-sidecar mcp: model (a built-in tool's text form: file text, grep lines, the diff; metadata in structuredContent) or json (structuredContent and its JSON text)"`
	MCPCheckpointTools string `env:"STEERABLE_MCP_CHECKPOINT_TOOLS" envDefault:"hidden" oneof:"hidden|deferred|direct" feature:"mcp" help:"steerable-sidecar mcp's checkpoint_create/list/diff/restore and tool_undo tools: hidden (callable by name, never offered to the model), deferred (found by tool_search) or direct (listed)"`
}

// Web holds the web tools' bounds, policy and provider (tools-spec "Web
// tools"). Disabled is set by the caller when serve degrades the pair.
type Web struct {
	FetchTimeoutMs    Millis `env:"STEERABLE_WEB_FETCH_TIMEOUT_MS" envDefault:"30000" range:"1..600000" feature:"web" help:"web_fetch timeout per call"`
	FetchMaxBytes     Bytes  `env:"STEERABLE_WEB_FETCH_MAX_BYTES" envDefault:"1000000" range:"1..100000000" feature:"web" help:"bytes of body web_fetch reads before truncating"`
	FetchMaxRedirects int    `env:"STEERABLE_WEB_FETCH_MAX_REDIRECTS" envDefault:"5" range:"0..20" feature:"web" help:"same-origin redirects web_fetch follows"`
	SearchTimeoutMs   Millis `env:"STEERABLE_WEB_SEARCH_TIMEOUT_MS" envDefault:"30000" range:"1..600000" feature:"web" help:"web_search timeout per call"`
	SearchMaxResults  int    `env:"STEERABLE_WEB_SEARCH_MAX_RESULTS" envDefault:"8" range:"1..20" feature:"web" help:"results of a web_search call that names no max_results (a call may ask for up to 20)"`
	SessionSearchCap  int    `env:"STEERABLE_WEB_SESSION_SEARCH_CAP" envDefault:"200" range:"0..1000000" feature:"web" help:"web_search calls per session (0 = no cap)"`
	SessionFetchCap   int    `env:"STEERABLE_WEB_SESSION_FETCH_CAP" envDefault:"0" range:"0..1000000" feature:"web" help:"web_fetch calls per session (0 = no cap)"`
	AllowedDomains    List   `env:"STEERABLE_WEB_ALLOWED_DOMAINS" feature:"web" help:"hosts (and their subdomains) the web tools may reach; empty = every public host"`
	BlockedDomains    List   `env:"STEERABLE_WEB_BLOCKED_DOMAINS" feature:"web" help:"hosts (and their subdomains) refused; blocked wins over allowed"`
	SearchProvider    string `env:"STEERABLE_WEB_SEARCH_PROVIDER" oneof:"|tavily|ddg|host" feature:"web" help:"web_search backend; empty = tavily when a key is set, else web_search is not registered"`
	SearchAPIKey      string `env:"STEERABLE_WEB_SEARCH_API_KEY" secret:"true" feature:"web" help:"Tavily key for web_search (never the chat key)"`
	TavilyAPIKey      string `env:"TAVILY_API_KEY" secret:"true" feature:"web" help:"fallback Tavily key when STEERABLE_WEB_SEARCH_API_KEY is empty or blank"`
	SearchBaseURL     string `env:"STEERABLE_WEB_SEARCH_BASE_URL" envDefault:"https://api.tavily.com" feature:"web" help:"Tavily API base URL (POST {base}/search)"`
	EgressConfined    bool   `env:"STEERABLE_EGRESS_CONFINED" envDefault:"false" feature:"web" help:"the host confines outbound traffic to an egress proxy; HTTPS_PROXY or HTTP_PROXY must then be set"`
	HTTPSProxy        string `env:"HTTPS_PROXY" feature:"web" help:"proxy for https requests of the web tools (https_proxy also read)"`
	HTTPProxy         string `env:"HTTP_PROXY" feature:"web" help:"proxy for http requests of the web tools (http_proxy also read)"`
	NoProxy           string `env:"NO_PROXY" feature:"web" help:"hosts that bypass the proxy (no_proxy also read)"`

	// Disabled says why the web pair is not registered ("" = enabled). Set
	// by the caller (serve posture, --no-web-tools), never by the env.
	Disabled string
}

// SearchKey is the Tavily key in effect: STEERABLE_WEB_SEARCH_API_KEY, else
// TAVILY_API_KEY. Surrounding blanks are dropped (a key pasted with a
// trailing space, or a .env file's CR), so a blank key is no key: it falls
// through to the next variable and, alone, leaves web_search unregistered
// instead of sending Tavily an empty key.
func (w Web) SearchKey() string {
	if k := trimBlank(w.SearchAPIKey); k != "" {
		return k
	}
	return trimBlank(w.TavilyAPIKey)
}

// trimBlank drops leading and trailing white space (Unicode White_Space:
// tabs, CR, NBSP, ideographic space) and invisible format or control
// characters (U+200B, U+FEFF), none of which can belong to a key.
func trimBlank(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Cc)
	})
}
