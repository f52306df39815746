package config

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaults(t *testing.T) {
	cfg, problems := Load(map[string]string{})
	if len(problems) != 0 {
		t.Fatalf("problems with an empty environment: %v", problems)
	}
	want := Config{
		WorkspaceConfine: true, MaxFrameBytes: 6*64<<20 + 1<<20, MaxOutputQueueBytes: 8 << 20, MaxInflight: 64, ShutdownGraceMs: 5000,
		Approvals: "off", RequireReadBeforeWrite: true, FileMaxBytes: 64 << 20, Checkpoints: true, CheckpointMaxMB: 512, ImageMaxEdge: 1568, ImageMaxBytes: 3932160, Sandbox: "auto",
		SearchIgnore:     []string{".git/", "node_modules/", "__pycache__/", ".venv/", "venv/", "dist/", "build/", "target/"},
		BashMaxTimeoutMs: 600000, BashMaxOutputBytes: 1 << 20, RunCodeTimeoutMs: 60000, RunCodeMaxCalls: 32, RunCodeMaxResult: 1 << 20,
		PluginStartTimeoutMs: 20000, PluginCallTimeoutMs: 120000, PluginMaxOutputBytes: 1 << 20,
		PluginMaxMessageBytes: 16 << 20, PluginMaxTools: 2000,
		SandboxEnv: "inherit", SandboxMaxProcs: 512, SandboxMaxMemoryMB: 4096, SandboxTmpMB: 1024,
		LSPDefaults: true, LSPIdleMs: 600000, LSPStartTimeoutMs: 20000, LSPRequestTimeoutMs: 15000, LSPDiagnosticsWaitMs: 1500,
		MCPStrategy: "full", MCPResults: "model", MCPCheckpointTools: "hidden",
		SessionBufferBytes: 1 << 20, MaxSessions: 8, SessionIdleMs: 30 * 60 * 1000,
		Web: Web{
			FetchTimeoutMs: 30000, FetchMaxBytes: 1000000, FetchMaxRedirects: 5,
			SearchTimeoutMs: 30000, SearchMaxResults: 8, SessionSearchCap: 200,
			SearchBaseURL: "https://api.tavily.com",
		},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestSearchIgnore: STEERABLE_SEARCH_IGNORE replaces the default set, an
// empty value keeps it, and "-" is passed on (the engine reads it as an
// empty set).
func TestSearchIgnore(t *testing.T) {
	for value, want := range map[string]List{
		"vendor/,*.min.js": {"vendor/", "*.min.js"},
		"":                 {".git/", "node_modules/", "__pycache__/", ".venv/", "venv/", "dist/", "build/", "target/"},
		"-":                {"-"},
	} {
		cfg, problems := Load(map[string]string{"STEERABLE_SEARCH_IGNORE": value})
		if len(problems) != 0 {
			t.Fatal(problems)
		}
		if diff := cmp.Diff(want, cfg.SearchIgnore); diff != "" {
			t.Errorf("%q (-want +got):\n%s", value, diff)
		}
	}
}

func TestProblemsNameVariableValueAndRange(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantVar string
		want    string // substring of the error
		feature string
	}{
		{"not a number", map[string]string{"STEERABLE_MAX_INFLIGHT": "lots"}, "STEERABLE_MAX_INFLIGHT", `STEERABLE_MAX_INFLIGHT="lots" is invalid: allowed an integer in 1..4096`, "core"},
		{"below range", map[string]string{"STEERABLE_MAX_INFLIGHT": "0"}, "STEERABLE_MAX_INFLIGHT", "1..4096", "core"},
		{"above ceiling", map[string]string{"STEERABLE_WEB_FETCH_MAX_BYTES": "100000001"}, "STEERABLE_WEB_FETCH_MAX_BYTES", "1..100000000", "web"},
		{"negative cap", map[string]string{"STEERABLE_WEB_SESSION_FETCH_CAP": "-1"}, "STEERABLE_WEB_SESSION_FETCH_CAP", "0..1000000", "web"},
		{"redirects ceiling", map[string]string{"STEERABLE_WEB_FETCH_MAX_REDIRECTS": "21"}, "STEERABLE_WEB_FETCH_MAX_REDIRECTS", "0..20", "web"},
		{"unknown provider", map[string]string{"STEERABLE_WEB_SEARCH_PROVIDER": "bing"}, "STEERABLE_WEB_SEARCH_PROVIDER", `one of "", "tavily", "ddg", "host"`, "web"},
		{"sandbox env", map[string]string{"STEERABLE_SANDBOX_ENV": "all"}, "STEERABLE_SANDBOX_ENV", `"inherit", "core"`, "sandbox"},
		{"memory ceiling", map[string]string{"STEERABLE_SANDBOX_MAX_MEMORY_MB": "-1"}, "STEERABLE_SANDBOX_MAX_MEMORY_MB", "0..1048576", "sandbox"},
		{"unknown sandbox", map[string]string{"STEERABLE_SANDBOX": "docker"}, "STEERABLE_SANDBOX", `"auto", "bwrap", "landlock", "seatbelt", "none"`, "sandbox"},
		{"bad bool", map[string]string{"STEERABLE_REQUIRE_READ_BEFORE_WRITE": "maybe"}, "STEERABLE_REQUIRE_READ_BEFORE_WRITE", "1/0 or true/false", "files"},
		{"approvals", map[string]string{"STEERABLE_APPROVALS": "ask"}, "STEERABLE_APPROVALS", `"off", "host"`, "core"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, problems := Load(tt.env)
			if len(problems) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(problems), problems)
			}
			p := problems[0]
			if p.Var != tt.wantVar || p.Feature != tt.feature || !strings.Contains(p.Error(), tt.want) {
				t.Errorf("problem = %+v (%q), want var %s feature %s containing %q", p, p.Error(), tt.wantVar, tt.feature, tt.want)
			}
			def, _ := Load(nil)
			def.Web.AllowedDomains, cfg.Web.AllowedDomains = nil, nil
			if diff := cmp.Diff(def, cfg); diff != "" {
				t.Errorf("invalid value not replaced by its default:\n%s", diff)
			}
		})
	}
}

func TestSeveralProblemsAtOnce(t *testing.T) {
	cfg, problems := Load(map[string]string{
		"STEERABLE_MAX_INFLIGHT":            "x",
		"STEERABLE_WEB_FETCH_MAX_BYTES":     "0",
		"STEERABLE_SHUTDOWN_GRACE_MS":       "y",
		"STEERABLE_WEB_FETCH_MAX_REDIRECTS": "3",
	})
	var names []string
	for _, p := range problems {
		names = append(names, p.Var)
	}
	if len(problems) != 3 {
		t.Fatalf("problems = %v", names)
	}
	if cfg.Web.FetchMaxRedirects != 3 || cfg.MaxInflight != 64 || cfg.ShutdownGraceMs != 5000 {
		t.Errorf("valid value lost or invalid kept: %+v", cfg)
	}
}

func TestValuesParsed(t *testing.T) {
	cfg, problems := Load(map[string]string{
		"STEERABLE_WEB_ALLOWED_DOMAINS":       "example.com,docs.go.dev",
		"STEERABLE_REQUIRE_READ_BEFORE_WRITE": "0",
		"https_proxy":                         "http://127.0.0.1:3128",
		"TAVILY_API_KEY":                      "tvly-1",
	})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if diff := cmp.Diff(List{"example.com", "docs.go.dev"}, cfg.Web.AllowedDomains); diff != "" {
		t.Error(diff)
	}
	if cfg.RequireReadBeforeWrite || cfg.Web.HTTPSProxy != "http://127.0.0.1:3128" || cfg.Web.SearchKey() != "tvly-1" {
		t.Errorf("cfg = %+v", cfg)
	}
}

func TestVarsTableListsEveryVariable(t *testing.T) {
	table := Table()
	seen := map[string]bool{}
	for _, v := range Vars() {
		if seen[v.Name] {
			t.Errorf("%s declared twice", v.Name)
		}
		seen[v.Name] = true
		if v.Help == "" || v.Feature == "" {
			t.Errorf("%s lacks help or feature tag", v.Name)
		}
		if !strings.Contains(table, v.Name) {
			t.Errorf("table lacks %s", v.Name)
		}
	}
	if len(seen) < 30 {
		t.Errorf("only %d variables", len(seen))
	}
}

// TestSearchKeyBlankIsNoKey: a key of blanks is no key: it falls
// through to TAVILY_API_KEY, and alone it leaves web_search unregistered
// instead of registering Tavily with an empty key.
func TestSearchKeyBlankIsNoKey(t *testing.T) {
	tests := []struct {
		name, primary, fallback, want string
	}{
		{"unset", "", "", ""},
		{"spaces", "   ", "", ""},
		{"tabs and newlines", "\t\n\r ", "", ""},
		{"unicode spaces", "\u00a0\u3000\u2003", "", ""},
		{"invisible format characters", "\u200b\ufeff", "", ""},
		{"blank primary falls back", "   ", "tvly-fallback", "tvly-fallback"},
		{"blank fallback", "", " \t", ""},
		{"primary wins", "tvly-1", "tvly-2", "tvly-1"},
		{"surrounding blanks trimmed", " tvly-1\r\n", "", "tvly-1"},
		{"fallback trimmed", "", "\ttvly-2 ", "tvly-2"},
		{"inner space kept", "tvly a", "", "tvly a"},
	}
	for _, tt := range tests {
		cfg, problems := Load(map[string]string{"STEERABLE_WEB_SEARCH_API_KEY": tt.primary, "TAVILY_API_KEY": tt.fallback})
		if len(problems) != 0 {
			t.Fatalf("%s: problems %v", tt.name, problems)
		}
		if got := cfg.Web.SearchKey(); got != tt.want {
			t.Errorf("%s: SearchKey() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestParseEdges pins the parsing rules: an empty variable means its
// default, a variable without a default stays zero, ints are 32-bit,
// booleans take strconv's spellings, lists split on commas with their
// items trimmed and empty ones dropped.
func TestParseEdges(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(Config) bool
		problem string // the variable reported, "" for none
	}{
		{"empty int means the default", map[string]string{"STEERABLE_MAX_INFLIGHT": ""}, func(c Config) bool { return c.MaxInflight == 64 }, ""},
		{"empty bool means the default", map[string]string{"STEERABLE_WORKSPACE_CONFINE": ""}, func(c Config) bool { return c.WorkspaceConfine }, ""},
		{"empty without default stays empty", map[string]string{"STEERABLE_BASH_PATH": ""}, func(c Config) bool { return c.BashPath == "" }, ""},
		{"bool spellings", map[string]string{"STEERABLE_SANDBOX_NETWORK": "t", "STEERABLE_WORKSPACE_CONFINE": "FALSE"}, func(c Config) bool { return c.SandboxNetwork && !c.WorkspaceConfine }, ""},
		{"int beyond 32 bits", map[string]string{"STEERABLE_MAX_INFLIGHT": "4294967296"}, func(c Config) bool { return c.MaxInflight == 64 }, "STEERABLE_MAX_INFLIGHT"},
		{"size beyond its range", map[string]string{"STEERABLE_MAX_FRAME_BYTES": "4294967296"}, func(c Config) bool { return c.MaxFrameBytes == 6*64<<20+1<<20 }, "STEERABLE_MAX_FRAME_BYTES"},
		{"int with a sign and spaces", map[string]string{"STEERABLE_MAX_INFLIGHT": " 8"}, func(c Config) bool { return c.MaxInflight == 64 }, "STEERABLE_MAX_INFLIGHT"},
		{"size at its ceiling", map[string]string{"STEERABLE_FILE_MAX_BYTES": "1073741824"}, func(c Config) bool { return c.FileMaxBytes == 1<<30 }, ""},
		{"size with a unit", map[string]string{"STEERABLE_FILE_MAX_BYTES": "1GiB", "STEERABLE_SANDBOX_MAX_MEMORY_MB": "2GiB"}, func(c Config) bool { return c.FileMaxBytes == 1<<30 && c.SandboxMaxMemoryMB == 2048 }, ""},
		{"duration with a unit", map[string]string{"STEERABLE_BASH_MAX_TIMEOUT_MS": "10m", "STEERABLE_SHUTDOWN_GRACE_MS": "1.5s"}, func(c Config) bool { return c.BashMaxTimeoutMs == 600000 && c.ShutdownGraceMs == 1500 }, ""},
		{"duration below a millisecond", map[string]string{"STEERABLE_ASK_USER_TIMEOUT_MS": "500us"}, func(c Config) bool { return c.AskUserTimeoutMs == 0 }, "STEERABLE_ASK_USER_TIMEOUT_MS"},
		{"list without default", map[string]string{"STEERABLE_SANDBOX_ENV_PASS": "A, B,,C "}, func(c Config) bool { return cmp.Equal(c.SandboxEnvPass, List{"A", "B", "C"}) }, ""},
		{"list without default, unset", map[string]string{}, func(c Config) bool { return c.SandboxEnvPass == nil }, ""},
		{"choice without default", map[string]string{"STEERABLE_WEB_SEARCH_PROVIDER": "ddg"}, func(c Config) bool { return c.Web.SearchProvider == "ddg" }, ""},
		{"choice is case-sensitive", map[string]string{"STEERABLE_SANDBOX": "Bwrap"}, func(c Config) bool { return c.Sandbox == "auto" }, "STEERABLE_SANDBOX"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, problems := Load(tt.env)
			if !tt.check(cfg) {
				t.Errorf("cfg = %+v", cfg)
			}
			var got string
			for _, p := range problems {
				got += p.Var
			}
			if got != tt.problem {
				t.Errorf("problems = %v, want %q", problems, tt.problem)
			}
		})
	}
}

// TestProblemsOrder: values that do not parse come first, then values out
// of range, each group in declaration order; each names the raw value.
func TestProblemsOrder(t *testing.T) {
	_, problems := Load(map[string]string{
		"STEERABLE_WEB_FETCH_MAX_BYTES": "0",   // range, declared late (Web)
		"STEERABLE_MAX_INFLIGHT":        "0",   // range
		"STEERABLE_SHUTDOWN_GRACE_MS":   "y",   // parse
		"STEERABLE_MAX_FRAME_BYTES":     "big", // parse, declared first
		"https_proxy":                   "http://p:1",
	})
	var got []string
	for _, p := range problems {
		got = append(got, p.Var+"="+p.Value)
	}
	want := []string{"STEERABLE_MAX_FRAME_BYTES=big", "STEERABLE_SHUTDOWN_GRACE_MS=y", "STEERABLE_MAX_INFLIGHT=0", "STEERABLE_WEB_FETCH_MAX_BYTES=0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestVarsReadTagsLikeReflect: the one-pass tag reader gives every field
// the values reflect.StructTag.Get gives it.
func TestVarsReadTagsLikeReflect(t *testing.T) {
	byName := map[string]reflect.StructTag{}
	var collect func(reflect.Type)
	collect = func(typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Tag.Get("env") == "" && f.Type.Kind() == reflect.Struct {
				collect(f.Type)
			} else if name := f.Tag.Get("env"); name != "" {
				byName[name] = f.Tag
			}
		}
	}
	collect(reflect.TypeOf(Config{}))
	vars := Vars()
	if len(vars) != len(byName) {
		t.Fatalf("Vars() has %d variables, the struct %d", len(vars), len(byName))
	}
	for _, v := range vars {
		tag := byName[v.Name]
		got := []string{v.Default, v.Feature, v.Help, strconv.FormatBool(v.Secret), strconv.FormatBool(v.Security)}
		want := []string{tag.Get("envDefault"), tag.Get("feature"), tag.Get("help"), strconv.FormatBool(tag.Get("secret") == "true"), strconv.FormatBool(tag.Get("security") == "true")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-reflect +Vars):\n%s", v.Name, diff)
		}
		if _, ok := tag.Lookup("oneof"); ok != (v.Choices != nil) {
			t.Errorf("%s: choices %v, tag %q", v.Name, v.Choices, tag)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	env := Environ()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Load(env)
	}
}

// FuzzEachTag: every key and value the one-pass tag reader yields is the
// one reflect.StructTag.Lookup finds for that key.
func FuzzEachTag(f *testing.F) {
	for _, s := range []string{`env:"A" help:"x \"y\" z"`, `a:"\\" b:"c"`, `a:"x`, `a:"\x41" b:""`, `k:"v\\\\" z:"w"`, ` a:"b"  c:"d"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		seen := map[string]bool{}
		eachTag(tag, func(key, value string) {
			if seen[key] {
				return
			}
			seen[key] = true
			if want, ok := reflect.StructTag(tag).Lookup(key); !ok || want != value {
				t.Fatalf("tag %q: eachTag gave %s=%q, Lookup %q, %v", tag, key, value, want, ok)
			}
		})
	})
}

func TestFrameLimitFitsTheLargestWrite(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Bytes
	}{
		{nil, 6*64<<20 + 1<<20},
		{map[string]string{"STEERABLE_FILE_MAX_BYTES": "1MiB"}, 7 << 20},
		{map[string]string{"STEERABLE_MAX_FRAME_BYTES": "0", "STEERABLE_FILE_MAX_BYTES": "1MiB"}, 7 << 20},
		{map[string]string{"STEERABLE_MAX_FRAME_BYTES": "16MiB"}, 16 << 20}, // set: it binds
	}
	for _, tt := range tests {
		cfg, problems := Load(tt.env)
		if len(problems) > 0 || cfg.MaxFrameBytes != tt.want {
			t.Errorf("Load(%v): frame limit %d (problems %v), want %d", tt.env, cfg.MaxFrameBytes, problems, tt.want)
		}
	}
}
