package checkpoint

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// A segment is a file of frames after an 8-byte magic. A frame is
//
//	length  uint32 LE  (of the payload)
//	crc     uint32 LE  (CRC-32C of the kind byte and the payload)
//	kind    byte
//	payload
//
// Frames are only ever appended, each append in one write, so a crash
// leaves at most one torn frame, at the tail; the reader stops at the
// first frame that is short or fails its checksum, and Open truncates
// the segment there.
const (
	segMagic  = "STCKPT1\n"
	headerLen = 9
	// maxPayload bounds a frame's length field; a longer one is torn
	// garbage, not a huge allocation.
	maxPayload = 64 << 20
)

// Frame kinds.
const (
	kindChunk      byte = 'c' // hash[32] + bytes
	kindVersion    byte = 'v' // version[32] + size uint64 + chunk hashes
	kindRecord     byte = 'r' // JSON Record
	kindCheckpoint byte = 'k' // JSON Checkpoint
	kindCommand    byte = 'x' // JSON Command
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errTorn is a frame that is not whole: the end of the valid log.
var errTorn = errors.New("torn or corrupt frame")

// appendChunkFrame appends the frame of chunk c with hash h, copying c
// once (appendFrame would need it as a []byte first).
func appendChunkFrame(dst []byte, h hash, c string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0, kindChunk)
	dst = append(dst, h[:]...)
	dst = append(dst, c...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(h)+len(c)))
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(dst[start+headerLen-1:], castagnoli))
	return dst
}

// appendFrame appends one frame of kind whose payload is the parts, in
// order.
func appendFrame(dst []byte, kind byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	crc := crc32.Update(0, castagnoli, []byte{kind})
	for _, p := range parts {
		crc = crc32.Update(crc, castagnoli, p)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	dst = append(dst, kind)
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// frameReader reads the frames of a segment from its start.
type frameReader struct {
	r   io.Reader
	off int64 // end of the last whole frame
	hdr [headerLen]byte
	buf []byte
}

// newFrameReader checks the segment's magic; a segment without it has no
// valid frame (errTorn).
func newFrameReader(r io.Reader) (*frameReader, error) {
	var m [len(segMagic)]byte
	if _, err := io.ReadFull(r, m[:]); err != nil || string(m[:]) != segMagic {
		return nil, errTorn
	}
	return &frameReader{r: r, off: int64(len(segMagic))}, nil
}

// next returns the next frame; the payload is valid until the next call.
// io.EOF is a clean end, errTorn a frame that is not whole (or another
// read error).
func (fr *frameReader) next() (kind byte, payload []byte, err error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		if err == io.EOF {
			return 0, nil, io.EOF
		}
		return 0, nil, errTorn
	}
	n := binary.LittleEndian.Uint32(fr.hdr[0:4])
	if n > maxPayload {
		return 0, nil, errTorn
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	payload = fr.buf[:n]
	if _, err := io.ReadFull(fr.r, payload); err != nil {
		return 0, nil, errTorn
	}
	kind = fr.hdr[8]
	crc := crc32.Update(crc32.Update(0, castagnoli, []byte{kind}), castagnoli, payload)
	if crc != binary.LittleEndian.Uint32(fr.hdr[4:8]) {
		return 0, nil, errTorn
	}
	fr.off += headerLen + int64(n)
	return kind, payload, nil
}
