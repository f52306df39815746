package benchkit

import (
	"encoding/json"
	"fmt"
)

// Invoke runs a sidecar tool through tool.invoke and returns its data. A
// result with success false is an error here, not a figure: a benchmark that
// times a failing call measures nothing.
func (p *Proc) Invoke(tool string, args any) (json.RawMessage, error) {
	raw, err := p.Call("tool.invoke", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res struct {
		Success bool            `json:"success"`
		Error   string          `json:"error"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if !res.Success {
		return nil, fmt.Errorf("%s: %s", tool, res.Error)
	}
	return res.Data, nil
}
