package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

var (
	// ErrOutside is a name that leads out of the repository: through "..",
	// as an absolute path, or through a symbolic link.
	ErrOutside = errors.New("leads outside the repository, which imagebot neither reads nor writes")
	// ErrNotRegular is a name that is not a regular file: a named pipe, a
	// device or a socket, which could block a read forever.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrSymlink is a symbolic link where a file is to be written: imagebot
	// writes regular files only, never through a link.
	ErrSymlink = errors.New("is a symbolic link; imagebot writes only regular files")
)

// TooLargeError is a file above a read's size limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("is larger than %d bytes", e.Limit)
}

// DirFS is the tree at dir as an fs.FS, as os.DirFS, except that no name
// leads outside dir (an error wrapping ErrOutside) and only directories
// and regular files open (others: ErrNotRegular, without blocking). Each
// call opens its own os.Root, so nothing stays open between calls.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

var _ fs.StatFS = dirFS("")

func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	var f *os.File
	err := d.inRoot(func(r *os.Root) (err error) {
		f, err = openRegular(r, name, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	var fi fs.FileInfo
	err := d.inRoot(func(r *os.Root) (err error) {
		fi, err = r.Stat(name)
		return outside(err)
	})
	return fi, err
}

func (d dirFS) inRoot(do func(*os.Root) error) error {
	r, err := os.OpenRoot(string(d))
	if err != nil {
		return err
	}
	defer r.Close()
	return do(r)
}

// openRegular opens name in r for reading, without blocking on a named
// pipe (O_NONBLOCK has no effect on a regular file), and refuses anything
// but a regular file (or a directory, when dirOK).
func openRegular(r *os.Root, name string, dirOK bool) (*os.File, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, outside(err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() && !(dirOK && st.IsDir()) {
		err = &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file name (slash-separated, relative) of the
// tree at dir, at most limit bytes of it (a *TooLargeError above).
func ReadFile(dir, name string, limit int64) ([]byte, error) {
	r, err := openRoot(dir, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := openRegular(r, filepath.FromSlash(name), false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, name, limit)
}

// ReadFS is ReadFile for any fs.FS (a git tree, DirFS): a Stat first
// keeps a named pipe from being opened at all.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, outside(err)
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, outside(err)
	}
	defer f.Close()
	return readCapped(f, name, limit)
}

func readCapped(f io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Limit: limit}}
	}
	return b, nil
}

// Lstat is os.Lstat of name in the tree at dir, never past a link that
// leaves it.
func Lstat(dir, name string) (fs.FileInfo, error) {
	r, err := openRoot(dir, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := r.Lstat(filepath.FromSlash(name))
	return fi, outside(err)
}

// WriteFile replaces (or creates) name in the tree at dir with data and
// permissions perm, creating its directories: through a temporary file in
// the same directory, renamed over name, so that name is either replaced
// whole or left as it was. A name through a link out of dir, or a link
// itself, is refused.
func WriteFile(dir, name string, data []byte, perm fs.FileMode) error {
	r, err := openRoot(dir, name)
	if err != nil {
		return err
	}
	defer r.Close()
	name = filepath.FromSlash(name)
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return outside(err)
	}
	switch fi, err := r.Lstat(name); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "write", Path: filepath.ToSlash(name), Err: ErrSymlink}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return outside(err)
	}
	tmp := filepath.Join(filepath.Dir(name), ".imagebot-"+randomSuffix())
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return outside(err)
	}
	defer r.Remove(tmp) // after a successful rename, there is nothing to remove
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Chmod(tmp, perm)
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	return outside(err)
}

// openRoot opens dir as an os.Root after checking that name is a local
// path: not absolute, no "..", nothing a Root would need to refuse.
func openRoot(dir, name string) (*os.Root, error) {
	if !filepath.IsLocal(filepath.FromSlash(name)) || strings.Contains(name, `\`) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
	}
	return os.OpenRoot(dir)
}

// outside makes os.Root's refusal of a path that escapes (its error value
// is not exported) an error wrapping ErrOutside.
func outside(err error) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) || !strings.Contains(pe.Err.Error(), "escapes") {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fmt.Errorf("%w (%v)", ErrOutside, pe.Err)}
}

func randomSuffix() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
