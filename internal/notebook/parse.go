package notebook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Notebook is a parsed notebook over its bytes.
type Notebook struct {
	src        []byte
	Cells      []Cell
	Major      int // nbformat
	Minor      int // nbformat_minor
	cellsOpen  int // offset of the cells array's '['
	cellsClose int // offset of its ']'
}

// Cell is one cell.
type Cell struct {
	ID             string // its id, or "cell-N" when it has none
	HasID          bool
	Type           string // code, markdown or raw
	Source         string
	Outputs        []Output
	ExecutionCount *int
	start, end     int // the cell object's bytes in src
	sourceIsString bool
}

// Output is one output of a code cell.
type Output struct {
	Type   string // stream, execute_result, display_data, error
	Name   string // stream: stdout or stderr
	Text   string // stream text, or the text/plain of a result
	Images []Image
	// error
	EName, EValue string
	Traceback     []string
}

// Image is an image output, decoded from its base64.
type Image struct {
	MimeType string
	Data     []byte
}

// ErrNotNotebook wraps every reason the bytes are not a notebook.
var ErrNotNotebook = errors.New("not a Jupyter notebook")

func notNotebook(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotNotebook, fmt.Sprintf(format, args...))
}

// Parse reads a notebook. b must not change while the Notebook is used.
func Parse(b []byte) (*Notebook, error) {
	nb := &Notebook{src: b, cellsOpen: -1}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, notNotebook("it is not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, notNotebook("%v", err)
		}
		key, _ := t.(string)
		if err := nb.member(dec, key); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, notNotebook("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notNotebook("data after the notebook's object")
	}
	switch {
	case nb.cellsOpen < 0:
		return nil, notNotebook("it has no cells array")
	case nb.Major != 4:
		return nil, notNotebook("nbformat %d; only nbformat 4 is read", nb.Major)
	}
	return nb, nil
}

// member reads one top-level member.
func (nb *Notebook) member(dec *json.Decoder, key string) error {
	switch key {
	case "cells":
		return nb.cells(dec)
	case "nbformat", "nbformat_minor":
		var n int
		if err := dec.Decode(&n); err != nil {
			return notNotebook("%s: %v", key, err)
		}
		if key == "nbformat" {
			nb.Major = n
		} else {
			nb.Minor = n
		}
		return nil
	}
	var skip json.RawMessage
	if err := dec.Decode(&skip); err != nil {
		return notNotebook("%v", err)
	}
	return nil
}

// cells reads the cells array, recording each cell's span.
func (nb *Notebook) cells(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return notNotebook("cells is not an array")
	}
	nb.cellsOpen = int(dec.InputOffset()) - 1
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return notNotebook("%v", err)
		}
		end := int(dec.InputOffset())
		c, err := parseCell(raw, len(nb.Cells)+1)
		if err != nil {
			return err
		}
		c.start, c.end = end-len(raw), end
		nb.Cells = append(nb.Cells, c)
	}
	if _, err := dec.Token(); err != nil {
		return notNotebook("%v", err)
	}
	nb.cellsClose = int(dec.InputOffset()) - 1
	return nil
}

// cellJSON is a cell as nbformat 4 writes it.
type cellJSON struct {
	CellType       string          `json:"cell_type"`
	ID             *string         `json:"id"`
	Source         json.RawMessage `json:"source"`
	Outputs        []outputJSON    `json:"outputs"`
	ExecutionCount *int            `json:"execution_count"`
}

type outputJSON struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       json.RawMessage            `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

func parseCell(raw json.RawMessage, n int) (Cell, error) {
	var cj cellJSON
	if err := json.Unmarshal(raw, &cj); err != nil {
		return Cell{}, notNotebook("cell %d: %v", n, err)
	}
	c := Cell{Type: cj.CellType, ID: "cell-" + strconv.Itoa(n), ExecutionCount: cj.ExecutionCount}
	if cj.ID != nil && *cj.ID != "" {
		c.ID, c.HasID = *cj.ID, true
	}
	var err error
	if c.Source, c.sourceIsString, err = multiline(cj.Source); err != nil {
		return Cell{}, notNotebook("cell %d: source: %v", n, err)
	}
	for _, o := range cj.Outputs {
		c.Outputs = append(c.Outputs, parseOutput(o))
	}
	return c, nil
}

// multiline reads nbformat's multiline string: a string, or a list of
// strings to join; absent is empty.
func multiline(raw json.RawMessage) (string, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", false, errors.New("neither a string nor a list of strings")
	}
	return strings.Join(parts, ""), false, nil
}

// imageTypes are the image outputs shown as pictures, in preference order.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

func parseOutput(o outputJSON) Output {
	out := Output{Type: o.OutputType, Name: o.Name, EName: o.EName, EValue: o.EValue, Traceback: o.Traceback}
	out.Text, _, _ = multiline(o.Text)
	if t, ok := o.Data["text/plain"]; ok {
		out.Text, _, _ = multiline(t)
	}
	for _, mt := range imageTypes {
		if raw, ok := o.Data[mt]; ok {
			if s, _, err := multiline(raw); err == nil {
				if data, err := decodeBase64(s); err == nil {
					out.Images = append(out.Images, Image{MimeType: mt, Data: data})
				}
			}
			break
		}
	}
	return out
}

// decodeBase64 decodes an image output, which nbformat may wrap in lines.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.DecodeString(s)
}
