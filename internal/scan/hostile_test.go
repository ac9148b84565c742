package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// deployment is one document of a generated manifest bundle: a Deployment
// with two containers, about 600 bytes.
func deployment(i int) string {
	return fmt.Sprintf(`---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-%d
  labels:
    app.kubernetes.io/name: web-%d
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: web-%d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web-%d
    spec:
      containers:
        - name: web
          image: nginx:1.25.%d
          ports:
            - containerPort: 80
        - name: sidecar
          image: "ghcr.io/acme/api:v1.7.%d"
          args: ["--listen", ":8080"]
`, i, i, i, i, i%10, i%10)
}

// bundle is a multi-document YAML file of almost size bytes, not more.
func bundle(size int) []byte {
	var b bytes.Buffer
	for i := 0; ; i++ {
		d := deployment(i)
		if b.Len()+len(d) > size {
			return b.Bytes()
		}
		b.WriteString(d)
	}
}

// singleLineJSON is a List of Pods written as JSON on one line, as
// `kubectl get -o json | jq -c` prints it: almost size bytes, no newline.
// label is the value of a label on every Pod (non-ASCII text makes columns
// differ from byte offsets).
func singleLineJSON(size int, label string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	for i := 0; ; i++ {
		item := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%d","labels":{"team":%q}},"spec":{"containers":[{"name":"web","image":"nginx:1.25.%d","ports":[{"containerPort":80}]}]}}`, i, label, i%10)
		if b.Len()+len(item)+3 > size {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// badLine is a bundle of almost size bytes with one container entry
// indented one column too little, about halfway; it returns the 1-based
// line of that entry, the line a person would fix.
func badLine(size int) ([]byte, int) {
	half := bundle(size / 2)
	line := bytes.Count(half, []byte("\n")) + 1
	var b bytes.Buffer
	b.Write(half)
	b.WriteString(strings.Join([]string{
		"---",
		"apiVersion: v1",
		"kind: Pod",
		"spec:",
		"  containers:",
		"    - name: a",
		"      image: nginx:1.25.3",
		"   - name: b", // one column short: the mistake
		"      image: nginx:1.25.3",
		"",
	}, "\n"))
	b.Write(bundle(size - b.Len()))
	return b.Bytes(), line + 7
}

// TestSizeCap: a 200 MiB file (sparse: only its size is real) is a problem
// that names its size, the cap and how to raise it, and is not read.
func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("image: nginx:1.25.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Dir(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refs) != 1 || res.Refs[0].File != "ok.yaml" {
		t.Errorf("refs = %v, want the one in ok.yaml: a big file stops nothing else", res.Refs)
	}
	if len(res.Problems) != 1 {
		t.Fatalf("problems = %v, want one", res.Problems)
	}
	p := res.Problems[0]
	for _, want := range []string{"huge.yaml:1: ", "200 MiB", "8 MiB limit", "maxFileSize"} {
		if !strings.Contains(p.Error(), want) {
			t.Errorf("problem %q does not say %q", p.Error(), want)
		}
	}
	if !errors.Is(p, ErrTooLarge) {
		t.Errorf("problem %v is not ErrTooLarge", p)
	}
}

// TestSizeCapOption: the cap is configurable, and holds on the bytes read
// even when stat reports no size (as /proc does), so nothing past cap+1
// bytes is read.
func TestSizeCapOption(t *testing.T) {
	src := bundle(64 << 10)
	for _, tc := range []struct {
		name    string
		max     int64
		tooBig  bool
		maxRead int
	}{
		{"below", 1 << 10, true, 1<<10 + 1},
		{"above", 1 << 20, false, len(src)},
		{"default", 0, false, len(src)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := &sizelessFS{files: fstest.MapFS{"big.yaml": {Data: src}}}
			res, err := FS(t.Context(), fsys, nil, WithMaxFileSize(tc.max))
			if err != nil {
				t.Fatal(err)
			}
			tooBig := len(res.Problems) == 1 && errors.Is(res.Problems[0], ErrTooLarge)
			if tooBig != tc.tooBig || (!tooBig && len(res.Problems) > 0) {
				t.Fatalf("problems = %v, want too large: %v", res.Problems, tc.tooBig)
			}
			if tooBig && !strings.Contains(res.Problems[0].Error(), "more than 1.0 KiB") {
				t.Errorf("problem %q does not name the cap", res.Problems[0].Error())
			}
			if fsys.read > tc.maxRead {
				t.Errorf("read %d bytes, want at most %d", fsys.read, tc.maxRead)
			}
		})
	}
}

// sizelessFS serves files whose stat says 0 bytes, counting what is read.
type sizelessFS struct {
	files fstest.MapFS
	mu    sync.Mutex
	read  int
}

func (s *sizelessFS) Open(name string) (fs.File, error) {
	f, err := s.files.Open(name)
	if err != nil || name == "." {
		return f, err
	}
	return &sizelessFile{File: f, fs: s}, nil
}

type sizelessFile struct {
	fs.File
	fs *sizelessFS
}

func (f *sizelessFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return sizeless{fi}, err
}

func (f *sizelessFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.fs.mu.Lock()
	f.fs.read += n
	f.fs.mu.Unlock()
	return n, err
}

type sizeless struct{ fs.FileInfo }

func (sizeless) Size() int64 { return 0 }

// TestSingleLineJSON: 5 MiB of JSON on one line (kubectl get -o json | jq
// -c) is scanned whole, and the work of locating its nodes grows with its
// size, not with its size squared: it took minutes when each lookup walked
// the line from its start.
func TestSingleLineJSON(t *testing.T) {
	for _, label := range []string{"web", "équipe-web"} {
		t.Run(label, func(t *testing.T) {
			// Steps, not seconds: the count is exact whatever the machine
			// does, so small inputs show the shape as well as 5 MiB would.
			small := steps(t, singleLineJSON(64<<10, label))
			large := steps(t, singleLineJSON(128<<10, label))
			if large > 2*small+small/4 {
				t.Errorf("steps: %d for 64 KiB, %d for 128 KiB: not linear", small, large)
			}
		})
	}
	// The 5 MiB file of the issue is BenchmarkFileSingleLineJSON5MiB's;
	// here a smaller one checks that spans far into the line are right.
	src := singleLineJSON(1<<20, "équipe-web")
	res := File("list.json.yaml", src)
	if len(res.Problems) > 0 || len(res.Refs) != bytes.Count(src, []byte(`"image"`)) {
		t.Fatalf("%d refs, problems %v; want %d refs", len(res.Refs), res.Problems, bytes.Count(src, []byte(`"image"`)))
	}
	last := res.Refs[len(res.Refs)-1]
	if got := string(src[last.TagField.Span.Start:last.TagField.Span.End]); got != last.Tag {
		t.Errorf("last tag span reads %q, want %q", got, last.Tag)
	}
}

// steps is the work the walker spends on positions in src.
func steps(t *testing.T, src []byte) int {
	t.Helper()
	docs, _, err := parse(src)
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{file: "f", lines: newLines(src), seen: map[*kyaml.Node]bool{}}
	for _, d := range docs {
		w.walk(d)
	}
	if len(w.refs) == 0 {
		t.Fatal("no refs")
	}
	return w.lines.steps
}

// TestSyntaxError8MiB: an 8 MiB bundle with one badly indented line names
// that line, found with a few parses rather than hundreds.
func TestSyntaxError8MiB(t *testing.T) {
	src, line := badLine(8 << 20)
	if len(src) > DefaultMaxFileSize {
		t.Fatalf("input is %d bytes, above the cap", len(src))
	}
	_, read, err := parse(src)
	if err == nil {
		t.Fatal("parsed")
	}
	got, parsed := locate(src, err, read)
	if got != line {
		t.Errorf("line %d, want %d", got, line)
	}
	if parsed > 2*len(src) {
		t.Errorf("parsed %d bytes to locate the error in %d: not linear", parsed, len(src))
	}
}
