package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrTooLarge marks a file above the size cap (WithMaxFileSize). It is not
// read beyond the cap and is left untouched.
var ErrTooLarge = errors.New("too large to scan, left untouched")

// readFile reads one file of fsys, never more than max+1 bytes of it. hint
// is its size as stat reported it (0 when unknown), which may be wrong (a
// git tree, /proc): it only sizes the buffer and refuses early, and the cap
// holds on the bytes actually read.
func readFile(fsys fs.FS, name string, hint, max int64) ([]byte, error) {
	if hint > max {
		return nil, tooLarge(hint, max) // before Open, which may load a git blob
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(int(hint) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, tooLarge(-1, max)
	}
	return b.Bytes(), nil
}

// tooLarge names the size (when known) and the cap, and how to raise it.
func tooLarge(n, max int64) error {
	what := "more than " + size(max)
	if n > 0 {
		what = fmt.Sprintf("%s (%d bytes)", size(n), n)
	}
	return fmt.Errorf("%w: %s, above the %s limit (raise maxFileSize in .imagebot.yaml to scan it, or list it under exclude)", ErrTooLarge, what, size(max))
}
