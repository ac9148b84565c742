package release

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"fmt"
	"time"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// The image's one user, as distroless and Chainguard images name it, so that
// the deploy/ manifests' runAsUser: 65532 is the user the image declares.
const (
	uid      = 65532
	userName = "nonroot"
	home     = "/home/nonroot"
	// CAFile is where Go's crypto/x509 (and curl, git, OpenSSL) look first
	// on Linux.
	CAFile = "/etc/ssl/certs/ca-certificates.crt"
	// Binary is the image's entrypoint.
	Binary = "/imagebot"
)

// entry is one file or directory of a layer.
type entry struct {
	name string // absolute path inside the image
	mode int64  // permission bits as tar stores them (01000 is sticky)
	dir  bool
	uid  int
	body []byte
}

// baseFiles is the filesystem under the binary: what a scratch image lacks
// for imagebot to reach registries and GitHub over TLS and to run as a
// named, non-root user.
func baseFiles() ([]entry, error) {
	ca, err := caBundle()
	if err != nil {
		return nil, err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, home)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, uid)
	return []entry{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/group", mode: 0o644, body: []byte(group)},
		{name: "/etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: CAFile, mode: 0o644, body: ca},
		{name: "/home", mode: 0o755, dir: true},
		{name: home, mode: 0o700, dir: true, uid: uid},
		// Go's os.TempDir; the deploy/ manifests mount an emptyDir here
		// because the root filesystem is read-only.
		{name: "/tmp", mode: 0o1777, dir: true},
	}, nil
}

// caBundle is Mozilla's root store as golang.org/x/crypto/x509roots/fallback
// ships it (kept current by updating that module), in PEM. Roots that the
// bundle only trusts with a constraint (certificates issued before a distrust
// date) are left out: a PEM file cannot carry the constraint, and trusting
// them fully would be weaker than Go's own fallback pool.
func caBundle() ([]byte, error) {
	var buf bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}); err != nil {
			return nil, err
		}
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("the CA bundle of golang.org/x/crypto/x509roots/fallback is empty")
	}
	return buf.Bytes(), nil
}

// layerTar writes entries as an uncompressed tar in the order given. Every
// header is owned by root (or the entry's uid), with mtime fixed at created,
// so the same input gives the same bytes.
func layerTar(entries []entry, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := created.UTC().Truncate(time.Second)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name[1:], // layers hold relative paths
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.uid,
			ModTime: mtime,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("tar %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
