package winetest

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"testing"
)

// TestProcessPrngDLL checks the stand-in DLL's shape without Wine: an
// AMD64 DLL whose export directory names bcryptprimitives.dll and exports
// ProcessPrng at an address inside its one section.
func TestProcessPrngDLL(t *testing.T) {
	img := processPrngDLL()
	f, err := pe.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("not a PE file: %v", err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		t.Fatalf("machine %#x, characteristics %#x: want an AMD64 DLL", f.Machine, f.Characteristics)
	}
	opt, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatal("no PE32+ optional header")
	}
	text := f.Section(".text")
	if text == nil || len(f.Sections) != 1 {
		t.Fatalf("sections %v: want one .text", f.Sections)
	}
	data, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	at := func(rva uint32) []byte { return data[rva-text.VirtualAddress:] }
	dir := opt.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	exp := at(dir.VirtualAddress)
	le := binary.LittleEndian
	cstr := func(rva uint32) string { b := at(rva); return string(b[:bytes.IndexByte(b, 0)]) }
	if name := cstr(le.Uint32(exp[12:])); name != "bcryptprimitives.dll" {
		t.Errorf("DLL name %q", name)
	}
	if n := le.Uint32(exp[24:]); n != 1 {
		t.Fatalf("%d names exported, want 1", n)
	}
	if name := cstr(le.Uint32(at(le.Uint32(exp[32:])))); name != "ProcessPrng" {
		t.Errorf("export %q, want ProcessPrng", name)
	}
	fn := le.Uint32(at(le.Uint32(exp[28:])))
	if fn < text.VirtualAddress || fn >= text.VirtualAddress+text.VirtualSize || at(fn)[0] == 0 {
		t.Errorf("ProcessPrng at %#x, outside the code", fn)
	}
	if opt.AddressOfEntryPoint != text.VirtualAddress {
		t.Errorf("entry point %#x", opt.AddressOfEntryPoint)
	}
}
