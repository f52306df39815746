package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// sidecar is one spawned binary driven over stdio, like a host would.
type sidecar struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Scanner
	nextID  int
	readyIn time.Duration // spawn → __SIDECAR_READY__ on stderr
}

// spawn starts bin and waits for the ready marker.
func spawn(bin string) (*sidecar, error) {
	cmd := exec.Command(bin, "--log-level", "error")
	cmd.Env = append(os.Environ(), "STEERABLE_WORKSPACE="+os.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	s.out.Buffer(make([]byte, 1<<20), 256<<20)
	stderr := bufio.NewScanner(errPipe)
	for stderr.Scan() {
		if strings.HasPrefix(stderr.Text(), "__SIDECAR_READY__:") {
			s.readyIn = time.Since(start)
			go io.Copy(io.Discard, errPipe)
			return s, nil
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, fmt.Errorf("%s exited before the ready marker", bin)
}

// call sends one request and returns its result, skipping notifications.
func (s *sidecar) call(method string, params any) (json.RawMessage, error) {
	s.nextID++
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	for s.out.Scan() {
		var f struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(s.out.Bytes(), &f); err != nil {
			return nil, err
		}
		if f.Method != "" || f.ID == nil || *f.ID != s.nextID {
			continue
		}
		if f.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, f.Error)
		}
		return f.Result, nil
	}
	return nil, fmt.Errorf("%s: the sidecar closed stdout", method)
}

// search runs tool_search as a tool.invoke round trip and checks it worked.
func (s *sidecar) search(query string) error {
	raw, err := s.call("tool.invoke", map[string]any{"name": "tool_search", "arguments": map[string]any{"query": query}})
	if err != nil {
		return err
	}
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || !res.Success {
		return fmt.Errorf("tool_search %q failed: %v %s", query, err, res.Error)
	}
	return nil
}

func (s *sidecar) close() {
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}
