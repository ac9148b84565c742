package rewrite

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/safefs"
	"github.com/imagebot/imagebot/internal/scan"
)

// ErrStale means a file changed after it was scanned: the bytes at a span are
// not the text scan recorded, so the edit would land in the wrong place.
var ErrStale = errors.New("file changed since it was scanned")

// Result says what Files did.
type Result struct {
	Changed  []string       // files written, relative to root, sorted
	Problems []plan.Problem // files left untouched, with the reason
}

// Files applies changes to the files below root. Each file is rewritten at
// most once, with all its edits, or not at all: a file whose edits fail is
// left byte-for-byte as it was and reported, and the others still change.
// Files are read and written inside root only (safefs): a name through a
// link out of root, a link, or a file that is not regular is reported and
// left alone.
func Files(root string, changes []plan.Change) (Result, error) {
	var res Result
	for _, fc := range ByFile(changes) {
		f, cs := fc.File, fc.Changes
		changed, skipped, err := File(root, f, cs)
		res.Problems = append(res.Problems, skipped...)
		var perr *os.PathError
		if errors.As(err, &perr) && !errors.Is(err, os.ErrNotExist) && !refused(err) {
			return res, fmt.Errorf("rewrite %s: %w", f, err)
		}
		if err != nil {
			res.Problems = append(res.Problems, plan.Problem{File: f, Line: cs[0].Ref.Line, Message: err.Error()})
			continue
		}
		if changed {
			res.Changed = append(res.Changed, f)
			if lock := LockOf(f); lock != "" && dependencyChanged(cs) && exists(root, lock) {
				res.Changed = append(res.Changed, lock)
			}
		}
	}
	return res, nil
}

// FileChanges are the changes that concern one file.
type FileChanges struct {
	File    string
	Changes []plan.Change
}

// ByFile groups changes by the file they edit, in file order, so that each
// file is read and written once with all its edits.
func ByFile(changes []plan.Change) []FileChanges {
	idx := map[string]int{}
	var out []FileChanges
	for _, c := range changes {
		i, ok := idx[c.Ref.File]
		if !ok {
			i = len(out)
			idx[c.Ref.File] = i
			out = append(out, FileChanges{File: c.Ref.File})
		}
		out[i].Changes = append(out[i].Changes, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// dependencyChanged reports whether changes move a Chart.yaml dependency,
// which its Chart.lock must follow.
func dependencyChanged(changes []plan.Change) bool {
	for _, c := range changes {
		if c.Ref.Kind == scan.KindChartDependency {
			return true
		}
	}
	return false
}

func exists(root, file string) bool {
	_, err := safefs.Lstat(root, file)
	return err == nil
}

// maxRewrite bounds a file apply reads: scan read it already, under the
// config's maxFileSize; this only keeps a file swapped since from costing
// unbounded memory.
const maxRewrite = 256 << 20

// refused is a file that safefs will not read or write.
func refused(err error) bool {
	return errors.Is(err, safefs.ErrOutside) || errors.Is(err, safefs.ErrNotRegular) || errors.Is(err, safefs.ErrSymlink)
}

// File applies changes that all concern the file named file (a slash path)
// below root, and reports whether it wrote anything. A change that cannot
// be expressed in the file is reported and skipped; the file's other
// changes still apply.
func File(root, file string, changes []plan.Change) (bool, []plan.Problem, error) {
	fi, err := safefs.Lstat(root, file)
	if err != nil {
		return false, nil, err
	}
	src, err := safefs.ReadFile(root, file, maxRewrite)
	if err != nil {
		return false, nil, err
	}
	out, skipped, err := Bytes(src, changes)
	if err != nil || string(out) == string(src) {
		return false, skipped, err
	}
	if lock := LockOf(file); lock != "" && dependencyChanged(changes) {
		// Chart.yaml and its Chart.lock change together or not at all:
		// `helm dependency build` refuses a lock out of sync.
		if err := writeLock(root, lock, src, out); err != nil {
			return false, skipped, fmt.Errorf("%s: %w; %s left untouched", lock, err, file)
		}
	}
	return true, skipped, safefs.WriteFile(root, file, out, fi.Mode().Perm())
}

// writeLock rewrites the lock of a Chart.yaml edited from before to
// after, when the chart has one.
func writeLock(root, lock string, before, after []byte) error {
	fi, err := safefs.Lstat(root, lock)
	if errors.Is(err, os.ErrNotExist) {
		return nil // no lock: helm dependency build runs an update
	}
	if err != nil {
		return err
	}
	src, err := safefs.ReadFile(root, lock, maxRewrite)
	if err != nil {
		return err
	}
	out, err := ChartLock(before, after, src)
	if err != nil {
		return err
	}
	return safefs.WriteFile(root, lock, out, fi.Mode().Perm())
}

// Lock is, for a commit built in memory (internal/gitops), what File does
// to a Chart.yaml's lock: when changes move a dependency of file, edited
// from src to out, it returns the lock's name and new bytes, read with
// read (ok false: the chart has no lock, which helm dependency build
// resolves on its own). lock is "" when no lock changes. An error means
// the lock cannot follow: the caller leaves both files alone.
func Lock(file string, changes []plan.Change, src, out []byte, read func(name string) ([]byte, bool)) (lock string, lockOut []byte, err error) {
	lock = LockOf(file)
	if lock == "" || !dependencyChanged(changes) || string(src) == string(out) {
		return "", nil, nil
	}
	old, ok := read(lock)
	if !ok {
		return "", nil, nil
	}
	lockOut, err = ChartLock(src, out, old)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w; %s left untouched", lock, err, file)
	}
	return lock, lockOut, nil
}

// Bytes applies changes to one file's bytes, after checking that every span
// still holds what scan saw, and checks that the result still parses and
// holds the new values where they were written. It returns the changes it
// had to skip as errors; a stale span or a result that does not read back
// is an error for the whole file, which then stays as it was.
func Bytes(src []byte, changes []plan.Change) (out []byte, skipped []plan.Problem, err error) {
	var edits []Edit
	var applied []plan.Change
	for _, c := range changes {
		if err := unchanged(src, c.Ref); err != nil {
			return nil, nil, err
		}
		e, err := Edits(c)
		if err != nil {
			skipped = append(skipped, plan.Problem{File: c.Ref.File, Line: c.Ref.Line, Message: err.Error()})
			continue
		}
		edits = append(edits, e...)
		applied = append(applied, c)
	}
	out, err = Apply(src, edits)
	if err != nil {
		return nil, nil, err
	}
	if err := verify(out, applied, edits); err != nil {
		return nil, nil, err
	}
	return out, skipped, nil
}

func unchanged(src []byte, r scan.Ref) error {
	for _, f := range []struct {
		field scan.Field
		want  string
	}{{r.TagField, r.Tag}, {r.DigestField, r.Digest}} {
		if !f.field.OK {
			continue
		}
		s := f.field.Span
		if s.End > len(src) || s.Start < 0 || string(src[s.Start:s.End]) != f.want {
			return fmt.Errorf("%s: %w", r.Location, ErrStale)
		}
	}
	return nil
}

// verify re-scans the new bytes: they must parse, and every changed
// reference must read back as its new tag and digest on its (possibly
// shifted) line.
func verify(out []byte, changes []plan.Change, edits []Edit) error {
	if len(changes) == 0 {
		return nil
	}
	file := changes[0].Ref.File
	res := scan.File(file, out)
	refs, probs := append(res.Refs, res.Charts...), res.Problems
	for _, p := range probs {
		// A template's document that was unreadable before stays so
		// (ErrTemplatePart): only tag bytes on literal lines changed.
		if errors.Is(p.Err, scan.ErrSyntax) || errors.Is(p.Err, scan.ErrTemplate) && !errors.Is(p.Err, scan.ErrTemplatePart) {
			return fmt.Errorf("%s: result would not parse, left untouched: %w", file, p.Err)
		}
	}
	for _, c := range changes {
		if !readsBack(refs, c, newLine(c.Ref, edits)) {
			return fmt.Errorf("%s: result does not read back as %s:%s, left untouched", c.Ref.Location, c.Ref.Name, c.Tag)
		}
	}
	return nil
}

// newLine is the reference's line after the edits: an inserted `digest:`
// line above it moves it down.
func newLine(r scan.Ref, edits []Edit) int {
	line := r.Line
	for _, e := range edits {
		if e.Span.End <= r.TagField.Span.Start && e.Span.Start < r.TagField.Span.Start {
			line += strings.Count(e.Text, "\n") + strings.Count(e.Text, "\r") - strings.Count(e.Text, "\r\n")
		}
	}
	return line
}

func readsBack(refs []scan.Ref, c plan.Change, line int) bool {
	for _, r := range refs {
		if r.Line != line || r.Kind.IsChart() != c.Ref.Kind.IsChart() || !sameName(r, c.Ref) {
			continue
		}
		if (c.Tag == "" || r.Tag == c.Tag) && (c.Digest == "" || r.Digest == c.Digest) {
			return true
		}
	}
	return false
}

// sameName reports whether a re-scanned reference names what c's did. A
// HelmRelease's repository is in another file that a re-scan of this one
// does not see: its chart name and source say which it is.
func sameName(r, was scan.Ref) bool {
	if r.Chart != nil && was.Chart != nil && r.Kind == scan.KindHelmRelease {
		return r.Chart.Name == was.Chart.Name && r.Chart.Source == was.Chart.Source
	}
	return r.Image == was.Image
}
