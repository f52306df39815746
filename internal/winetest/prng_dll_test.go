package winetest

import "encoding/binary"

// processPrngDLL is a 64-bit Windows DLL named bcryptprimitives.dll that
// exports ProcessPrng(PBYTE, SIZE_T) BOOL, written out byte by byte. Go's
// Windows runtime takes its random numbers from that export and will not
// start without it; Debian's Wine 8.0 has no such DLL. The stand-in fills
// the buffer from a xorshift generator seeded by the time-stamp counter:
// test scaffolding placed in the test's own Wine prefix, never a source of
// secrets.
//
// Layout: the headers in the first 0x200 bytes of the file, one section
// (.text, RVA 0x1000, file offset 0x200) holding DllMain, ProcessPrng and
// the export directory. The code uses no absolute address, so the image
// needs no relocations wherever the loader maps it.
func processPrngDLL() []byte {
	const (
		fileAlign = 0x200
		textRVA   = 0x1000
		dllMain   = textRVA
		prng      = textRVA + 0x10
		exports   = textRVA + 0x100
	)
	img := make([]byte, 2*fileAlign)
	le := binary.LittleEndian
	put16 := func(off int, v uint16) { le.PutUint16(img[off:], v) }
	put32 := func(off int, v uint32) { le.PutUint32(img[off:], v) }
	put64 := func(off int, v uint64) { le.PutUint64(img[off:], v) }
	at := func(rva int) int { return rva - textRVA + fileAlign } // file offset of an RVA in .text

	// DOS header: the magic and where the PE header is.
	copy(img, "MZ")
	put32(0x3c, 0x40)
	// PE signature and COFF header.
	copy(img[0x40:], "PE\x00\x00")
	coff := 0x44
	put16(coff, 0x8664) // AMD64
	put16(coff+2, 1)    // one section
	put16(coff+16, 240) // size of the PE32+ optional header
	put16(coff+18, 0x2022)
	// Optional header (PE32+).
	opt := coff + 20
	put16(opt, 0x20b)
	put32(opt+4, fileAlign)    // size of code
	put32(opt+16, dllMain)     // entry point
	put32(opt+20, textRVA)     // base of code
	put64(opt+24, 0x180000000) // preferred image base
	put32(opt+32, 0x1000)      // section alignment
	put32(opt+36, fileAlign)   // file alignment
	put16(opt+40, 6)           // OS version 6.0
	put16(opt+48, 6)           // subsystem version 6.0
	put32(opt+56, 0x2000)      // size of image
	put32(opt+60, fileAlign)   // size of headers
	put16(opt+68, 3)           // console subsystem
	put16(opt+70, 0x0100)      // NX compatible
	put64(opt+72, 0x100000)    // stack reserve
	put64(opt+80, 0x1000)      // stack commit
	put64(opt+88, 0x100000)    // heap reserve
	put64(opt+96, 0x1000)      // heap commit
	put32(opt+108, 16)         // data directories
	dirs := opt + 112
	// Section header.
	sec := opt + 240
	copy(img[sec:], ".text")
	put32(sec+8, fileAlign)   // virtual size
	put32(sec+12, textRVA)    // RVA
	put32(sec+16, fileAlign)  // raw size
	put32(sec+20, fileAlign)  // file offset
	put32(sec+36, 0x60000020) // code, execute, read

	// DllMain: return TRUE.
	copy(img[at(dllMain):], []byte{0xb8, 1, 0, 0, 0, 0xc3})
	// ProcessPrng(rcx = buffer, rdx = length): xorshift64 over the TSC.
	copy(img[at(prng):], []byte{
		0x49, 0x89, 0xd0, // mov r8, rdx
		0x0f, 0x31, // rdtsc
		0x48, 0xc1, 0xe2, 0x20, // shl rdx, 32
		0x48, 0x09, 0xd0, // or rax, rdx
		0x48, 0x83, 0xc8, 0x01, // or rax, 1
		// loop:
		0x4d, 0x85, 0xc0, // test r8, r8
		0x74, 0x28, // jz done
		0x48, 0x89, 0xc2, // mov rdx, rax
		0x48, 0xc1, 0xe2, 0x0d, // shl rdx, 13
		0x48, 0x31, 0xd0, // xor rax, rdx
		0x48, 0x89, 0xc2, // mov rdx, rax
		0x48, 0xc1, 0xea, 0x07, // shr rdx, 7
		0x48, 0x31, 0xd0, // xor rax, rdx
		0x48, 0x89, 0xc2, // mov rdx, rax
		0x48, 0xc1, 0xe2, 0x11, // shl rdx, 17
		0x48, 0x31, 0xd0, // xor rax, rdx
		0x88, 0x01, // mov [rcx], al
		0x48, 0xff, 0xc1, // inc rcx
		0x49, 0xff, 0xc8, // dec r8
		0xeb, 0xd3, // jmp loop
		// done:
		0xb8, 1, 0, 0, 0, // mov eax, 1
		0xc3, // ret
	})

	// Export directory: one function, exported by name.
	const (
		funcs    = exports + 40
		names    = funcs + 4
		ordinals = names + 4
		fnName   = ordinals + 4
		dllName  = fnName + len("ProcessPrng\x00")
		end      = dllName + len("bcryptprimitives.dll\x00")
	)
	put32(at(exports)+12, uint32(dllName))
	put32(at(exports)+16, 1) // ordinal base
	put32(at(exports)+20, 1) // functions
	put32(at(exports)+24, 1) // names
	put32(at(exports)+28, funcs)
	put32(at(exports)+32, names)
	put32(at(exports)+36, ordinals)
	put32(at(funcs), uint32(prng))
	put32(at(names), uint32(fnName))
	put16(at(ordinals), 0)
	copy(img[at(fnName):], "ProcessPrng\x00")
	copy(img[at(dllName):], "bcryptprimitives.dll\x00")
	put32(dirs, exports) // data directory 0: exports
	put32(dirs+4, uint32(end-exports))
	return img
}
