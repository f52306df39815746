package mcptest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TinyPNG is the 1×1 PNG the media tool returns.
var TinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// addTools registers the well-behaved server's tools.
func addTools(srv *mcp.Server, o options) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add := func(name, desc string, ann *mcp.ToolAnnotations, in map[string]any, h mcp.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: o.namePrefix + name, Description: desc, Annotations: ann, InputSchema: in}, h)
	}
	add("echo", "Echo the text back.", ro, schema("text:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := args[struct{ Text string }](r)
		return text(a.Text), err
	})
	add("plain", "A tool without annotations.", nil, schema(), constant("plain"))
	add("remove_thing", "Remove a thing.", &mcp.ToolAnnotations{DestructiveHint: ptr(true)}, schema(), constant("removed"))
	add("put_thing", "Put a thing, idempotently.", &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false)}, schema(), constant("put"))
	add("ask_world", "Ask the open world.", &mcp.ToolAnnotations{OpenWorldHint: ptr(true), DestructiveHint: ptr(false)}, schema(), constant("asked"))
	add("fail", "Fail with isError.", ro, schema(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := text("it failed on purpose: the widget is missing")
		r.IsError = true
		return r, nil
	})
	add("structured", "Structured content.", ro, schema(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := text(`{"answer":42}`)
		r.StructuredContent = map[string]any{"answer": 42, "unit": "none"}
		return r, nil
	})
	add("media", "An image, a resource and a link.", ro, schema(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "here is a picture"},
			&mcp.ImageContent{MIMEType: "image/png", Data: TinyPNG},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "resource text"}},
			&mcp.ResourceLink{URI: "https://example.com/doc", Name: "doc"},
		}}, nil
	})
	add("big", "Return N bytes of text.", ro, schema("bytes:integer"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := args[struct{ Bytes int }](r)
		return text(strings.Repeat("x", a.Bytes)), err
	})
	addTimeTools(srv, add)
	addWorldTools(add)
	addDynamicTools(srv, add)
	if path, name, ok := strings.Cut(o.addIf, "="); ok {
		if _, err := os.Stat(path); err == nil {
			add(name, "Added because "+path+" exists.", ro, schema(), constant(name))
		}
	}
	if o.readFile {
		add("read_file", "Read a file (the name of a built-in).", ro, schema("path:string"), constant("read"))
	}
	if o.invalidSchema {
		add("broken", "A tool whose schema is not valid.", ro, map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "strnig"}}}, constant("never"))
	}
	if o.danglingRef {
		add("dangling", "A tool whose schema refers to a definition it lacks.", ro, map[string]any{"type": "object",
			"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/nowhere"}}}, constant("never"))
	}
	for i := range o.tools {
		add(fmt.Sprintf("gen_%d", i), fmt.Sprintf("Generated tool number %d: look up record %d in the catalogue.", i, i), ro,
			map[string]any{"type": "object", "properties": map[string]any{
				"id":    map[string]any{"type": "string", "description": "record id"},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
				"mode":  map[string]any{"enum": []any{"fast", "full"}},
			}, "required": []any{"id"}}, constant(fmt.Sprint("gen ", i)))
	}
}

type adder func(name, desc string, ann *mcp.ToolAnnotations, in map[string]any, h mcp.ToolHandler)

func constant(s string) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(s), nil }
}

// addTimeTools: progress, slow, hanging and crashing calls.
func addTimeTools(srv *mcp.Server, add adder) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add("progress", "Report progress steps, then finish.", ro, schema("steps:integer"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Steps int }](r)
		for i := 1; i <= a.Steps; i++ {
			notify(ctx, r, float64(i), float64(a.Steps), fmt.Sprintf("step %d", i))
			time.Sleep(150 * time.Millisecond)
		}
		return text("done"), nil
	})
	add("flood", "Send N progress notifications as fast as possible, then finish.", ro, schema("n:integer"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ N int }](r)
		for i := 1; i <= a.N; i++ {
			notify(ctx, r, float64(i), float64(a.N), "")
		}
		return text("flooded"), nil
	})
	add("sleep", "Sleep ms milliseconds, or until cancelled.", ro, schema("ms:integer"), func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Ms int }](r)
		fmt.Fprintln(os.Stderr, "mcp-test-server: sleep started")
		select {
		case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			return text("slept"), nil
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "mcp-test-server: sleep cancelled by the client")
			return nil, ctx.Err()
		}
	})
	add("hang", "Never answer, even when cancelled.", ro, schema(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {}
	})
	add("crash", "Exit in the middle of the call.", ro, schema(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "mcp-test-server: crashing on purpose")
		os.Exit(7)
		return nil, nil
	})
}

func notify(ctx context.Context, r *mcp.CallToolRequest, done, total float64, msg string) {
	if tok := r.Params.GetProgressToken(); tok != nil {
		_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: done, Total: total, Message: msg})
	}
}

// addWorldTools: what the sandbox must stop or let through.
func addWorldTools(add adder) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add("env", "Return the values of the named environment variables.", ro, map[string]any{"type": "object",
		"properties": map[string]any{"names": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, _ := args[struct{ Names []string }](r)
			var b strings.Builder
			for _, n := range a.Names {
				v, ok := os.LookupEnv(n)
				if !ok {
					v = "<unset>"
				}
				fmt.Fprintf(&b, "%s=%s\n", n, v)
			}
			return text(b.String()), nil
		})
	add("write", "Write content to path.", nil, schema("path:string", "content:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Path, Content string }](r)
		if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
			return failed("write refused: %v", err), nil
		}
		return text("wrote " + a.Path), nil
	})
	add("cat", "Return the content of the file at path.", ro, schema("path:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Path string }](r)
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return failed("read refused: %v", err), nil
		}
		return text(string(b)), nil
	})
	add("connect", "Open a TCP connection to addr.", nil, schema("addr:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Addr string }](r)
		c, err := net.DialTimeout("tcp", a.Addr, 2*time.Second)
		if err != nil {
			return failed("connect refused: %v", err), nil
		}
		c.Close()
		return text("connected to " + a.Addr), nil
	})
	add("spawn", "Start a sleep 60 named marker (setsid: in a session of its own) and return.", nil, map[string]any{"type": "object",
		"properties": map[string]any{"marker": map[string]any{"type": "string"}, "setsid": map[string]any{"type": "boolean"}}, "required": []any{"marker"}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, _ := args[struct {
				Marker string
				Setsid bool
			}](r)
			sleep, err := exec.LookPath("sleep")
			if err != nil {
				return failed("%v", err), nil
			}
			cmd := &exec.Cmd{Path: sleep, Args: []string{a.Marker, "60"}, SysProcAttr: ownSession(a.Setsid)}
			if err := cmd.Start(); err != nil {
				return failed("spawn: %v", err), nil
			}
			return text(fmt.Sprint("spawned ", cmd.Process.Pid)), nil
		})
}

func failed(format string, a ...any) *mcp.CallToolResult {
	r := text(fmt.Sprintf(format, a...))
	r.IsError = true
	return r
}

// addDynamicTools: tools that change the tool list (list_changed).
func addDynamicTools(srv *mcp.Server, add adder) {
	add("add_tool", "Add a tool named name (the server sends list_changed).", nil, schema("name:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Name string }](r)
		srv.AddTool(&mcp.Tool{Name: a.Name, Description: "Added at run time.", InputSchema: schema(), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, constant("added tool "+a.Name))
		return text("added " + a.Name), nil
	})
	add("remove_tool", "Remove the tool named name (the server sends list_changed).", nil, schema("name:string"), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, _ := args[struct{ Name string }](r)
		srv.RemoveTools(a.Name)
		return text("removed " + a.Name), nil
	})
}
