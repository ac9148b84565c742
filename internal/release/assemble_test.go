package release

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/random"
)

// assemble is Build without the compiler: the same image for a given
// binary, so these tests run in milliseconds.
func assemble(t *testing.T, bin []byte, o Options) v1.Image {
	t.Helper()
	base, err := baseLayer(o.Created)
	if err != nil {
		t.Fatal(err)
	}
	img, err := platformImage(base, bin, v1.Platform{OS: "linux", Architecture: "arm64"}, o)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestReproducible: one commit gives one digest, whenever and wherever it
// is built, and every timestamp in the layers is the commit time.
func TestReproducible(t *testing.T) {
	o := Options{Main: "./cmd/bot", Version: "1.2.3", Created: commitTime}
	bin := []byte("\x7fELF not really")
	first, err := assemble(t, bin, o).Digest()
	if err != nil {
		t.Fatal(err)
	}
	img := assemble(t, bin, o)
	if again, _ := img.Digest(); again != first {
		t.Errorf("two builds of the same input: %s, then %s", first, again)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !h.ModTime.Equal(commitTime) {
				t.Errorf("layer %d: %s has mtime %v, want the commit time %v", i, h.Name, h.ModTime, commitTime)
			}
		}
		rc.Close()
	}

	later := o
	later.Created = commitTime.Add(time.Hour)
	if other, _ := assemble(t, bin, later).Digest(); other == first {
		t.Error("a different commit time gave the same digest: the time is not in the image")
	}
}

func TestOptionsValidate(t *testing.T) {
	ok := Options{Main: "./cmd/bot", Version: "1.2.3", Created: commitTime, Platforms: DefaultPlatforms}
	tests := []struct {
		name   string
		change func(*Options)
		want   string // in the error; "" means valid
	}{
		{"valid", func(*Options) {}, ""},
		{"no version", func(o *Options) { o.Version = "" }, "no version"},
		{"no time", func(o *Options) { o.Created = time.Time{} }, "SOURCE_DATE_EPOCH"},
		{"darwin", func(o *Options) { o.Platforms = []v1.Platform{{OS: "darwin", Architecture: "arm64"}} }, "darwin/arm64: the image's base is a Linux filesystem"},
		{"twice", func(o *Options) { o.Platforms = append(o.Platforms, DefaultPlatforms[0]) }, "linux/amd64 given twice"},
		{"no platforms", func(o *Options) { o.Platforms = nil }, "no platforms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			o.Platforms = append([]v1.Platform(nil), ok.Platforms...)
			tc.change(&o)
			err := o.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestParsePlatforms(t *testing.T) {
	got, err := ParsePlatforms("linux/amd64, linux/arm64")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(DefaultPlatforms, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "linux/amd64,", "linux/amd64/v1/x"} {
		if _, err := ParsePlatforms(bad); err == nil {
			t.Errorf("ParsePlatforms(%q): no error", bad)
		}
	}
}

// TestWriteLayoutKeepsOtherDirectories: a mistyped -out never deletes a
// directory that is not an earlier build.
func TestWriteLayoutKeepsOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	os.WriteFile(keep, []byte("mine"), 0o644)
	err := WriteLayout(dir, empty.Index, "x")
	if err == nil || !strings.Contains(err.Error(), "not an OCI image layout") {
		t.Fatalf("WriteLayout over a plain directory: %v", err)
	}
	if b, _ := os.ReadFile(keep); !bytes.Equal(b, []byte("mine")) {
		t.Error("WriteLayout removed a file it did not write")
	}

	// An earlier layout is replaced, not appended to.
	out := filepath.Join(dir, "image")
	for range 2 {
		idx, err := random.Index(64, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteLayout(out, idx, "x"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "index.json"))
	if n := strings.Count(string(b), `"digest"`); n != 1 {
		t.Errorf("index.json after two builds has %d entries, want 1:\n%s", n, b)
	}
}
