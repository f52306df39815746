package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// client speaks newline-delimited JSON-RPC 2.0 to a child over stdio: the
// sidecar and the reference MCP server are measured by the same code.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// start runs the child; its stderr goes to ours only when showErrors (the
// sidecar logs only errors; the reference server chats on stderr).
func start(name string, args []string, dir string, showErrors bool) (*client, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if showErrors {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &client{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// call sends a request and returns its result, skipping notifications.
func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	want := strconv.Itoa(c.id)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var f struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &f) != nil || strings.TrimSpace(string(f.ID)) != want {
			continue
		}
		if f.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, f.Error)
		}
		return f.Result, nil
	}
}

func (c *client) notify(method string, params any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	_, err := c.in.Write(append(b, '\n'))
	return err
}

// peakRSS is the child's high-water resident set (VmHWM) in bytes.
func (c *client) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

func (c *client) close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// sidecarTool invokes a tool and fails on a failed result.
func (c *client) sidecarTool(name string, args any) (map[string]any, error) {
	raw, err := c.call("tool.invoke", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res struct {
		Success bool           `json:"success"`
		Error   string         `json:"error"`
		Data    map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if !res.Success {
		return nil, fmt.Errorf("%s: %s", name, res.Error)
	}
	return res.Data, nil
}

// mcpTool calls an MCP server's tool and fails on isError.
func (c *client) mcpTool(name string, args any) error {
	raw, err := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return err
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", name, raw)
	}
	return nil
}
