package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

func TestFindSymbol(t *testing.T) {
	tests := []struct {
		line, symbol string
		want         int
		wantErr      string
	}{
		{"x := totals + total(1)", "total", 14, ""},
		{"func total() {}", "total", 5, ""},
		{"subtotal", "total", 3, ""}, // no whole-word match: the first occurrence
		{"a := b", "total", 0, "is not on that line, which reads: a := b"},
		{"a", "", 0, "symbol is empty"},
		{"s := \"é\" + naïve", "naïve", 12, ""},
	}
	for _, tt := range tests {
		got, err := findSymbol(tt.line, tt.symbol)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("findSymbol(%q, %q) err = %v, want %q", tt.line, tt.symbol, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("findSymbol(%q, %q) = %d, %v; want %d", tt.line, tt.symbol, got, err, tt.want)
		}
	}
}

func TestUTF16Columns(t *testing.T) {
	line := "a😀b é c"
	for _, tt := range []struct{ byteOff, u16 int }{{0, 0}, {1, 1}, {5, 3}, {7, 5}, {9, 6}} {
		if got := utf16Column(line, tt.byteOff); got != tt.u16 {
			t.Errorf("utf16Column(%d) = %d, want %d", tt.byteOff, got, tt.u16)
		}
		if got := byteColumn(line, tt.u16); got != tt.byteOff {
			t.Errorf("byteColumn(%d) = %d, want %d", tt.u16, got, tt.byteOff)
		}
	}
	if got := byteColumn("ab", 99); got != 2 {
		t.Errorf("byteColumn past the end = %d, want 2", got)
	}
}

func TestPosition(t *testing.T) {
	lines := splitLines("package p\r\n\r\nfunc 😀total() {}\n")
	p, err := position(lines, 3, "total")
	if err != nil {
		t.Fatal(err)
	}
	if want := (protocol.Position{Line: 2, Character: 7}); p != want {
		t.Errorf("position = %+v, want %+v", p, want)
	}
	if _, err := position(lines, 9, "x"); err == nil || !strings.Contains(err.Error(), "line 9 is outside the file (1..4)") {
		t.Errorf("err = %v", err)
	}
}

func TestCountNew(t *testing.T) {
	d := func(msg string, sev protocol.DiagnosticSeverity, line uint32) protocol.Diagnostic {
		return protocol.Diagnostic{Message: msg, Severity: sev, Range: protocol.Range{Start: protocol.Position{Line: line}}}
	}
	before := []protocol.Diagnostic{d("a", 1, 3), d("b", 2, 4), d("hint", 4, 1)}
	after := []protocol.Diagnostic{d("a", 1, 5), d("a", 1, 9), d("c", 1, 1), d("hint2", 4, 2)}
	if got := countNew(before, after); got != 2 { // the second "a" and "c"; hints never count
		t.Errorf("countNew = %d, want 2", got)
	}
	if got := countNew(nil, nil); got != 0 {
		t.Errorf("countNew(nil, nil) = %d", got)
	}
}

func TestViewSortsAndClips(t *testing.T) {
	long := strings.Repeat("x", maxMessageLength+10)
	diags := []protocol.Diagnostic{
		{Message: "warn", Severity: 2, Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 0}}},
		{Message: long, Severity: 1, Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 1}}},
		{Message: "info", Severity: 3},
	}
	got := view("a.go", []string{"x", "é😀z"}, diags)
	if len(got) != 2 || got[0].Severity != "error" || got[1].Severity != "warning" {
		t.Fatalf("view = %+v", got)
	}
	if got[0].Line != 2 || got[0].Column != 3 || !strings.HasSuffix(got[0].Message, "…") || len(got[0].Message) > maxMessageLength+4 {
		t.Errorf("error item = %+v", got[0])
	}
}
