package release

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// WriteLayout writes idx as the one entry of an OCI image layout at dir,
// named ref (org.opencontainers.image.ref.name), replacing the layout an
// earlier build left there. `crane push DIR REF` pushes that entry as a
// multi-platform index, and `skopeo copy oci:DIR:REF ...` finds it by name.
//
// A dir that exists but is not an OCI layout is refused, never deleted: a
// mistyped path must not cost the user a directory.
func WriteLayout(dir string, idx v1.ImageIndex, ref string) error {
	if err := clearLayout(dir); err != nil {
		return err
	}
	// Written beside dir and renamed, so an interrupted build never leaves
	// a half layout that the next push would read.
	tmp := filepath.Clean(dir) + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return fmt.Errorf("oci layout %s: %w", dir, err)
	}
	anns := map[string]string{}
	if ref != "" {
		anns["org.opencontainers.image.ref.name"] = ref
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(anns)); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("oci layout %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("oci layout %s: %w", dir, err)
	}
	return nil
}

// clearLayout removes the OCI layout at dir, if there is one.
func clearLayout(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil && len(entries) > 0 {
		return fmt.Errorf("%s exists and is not an OCI image layout (no oci-layout file): remove it or choose another output directory", dir)
	}
	return os.RemoveAll(dir)
}
