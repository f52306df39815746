package config

// frameLimit is STEERABLE_MAX_FRAME_BYTES when set (not 0), else what a
// write_file of STEERABLE_FILE_MAX_BYTES needs: JSON escapes a byte in at
// most 6 (\u0000), plus 1 MiB for the envelope and the other arguments.
// Frames are read into memory only as far as they go, so a large limit
// costs nothing until a frame that large arrives.
func frameLimit(set, fileMax Bytes) Bytes {
	if set > 0 {
		return set
	}
	return 6*fileMax + 1<<20
}
