package files

import (
	"context"
	"io"
)

// WithContext makes reads of r fail with ctx's error once ctx is done, so
// streaming a large file (hashing, read_file) stops when its call is
// cancelled.
func WithContext(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
