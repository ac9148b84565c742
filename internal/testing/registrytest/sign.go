package registrytest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/imagebot/imagebot/internal/signature"
)

// emptyConfigMediaType is the config of an OCI 1.1 artifact manifest that
// has none. cosign's own names are internal/signature's, which reads them.
const emptyConfigMediaType = "application/vnd.oci.empty.v1+json"

// WithReferrersAPI makes the server answer the OCI 1.1 referrers API
// (GET /v2/<name>/referrers/<digest>). Without it the server answers that
// endpoint with 404, as registries without the API do, and PushReferrer
// maintains the referrers tag schema (a sha256-<hex> index tag) instead.
func WithReferrersAPI() Option {
	return func(s *Server) {
		s.reg = registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true))
	}
}

// CosignSignature is one layer of a cosign signature manifest: the signed
// payload and the layer's annotations (signature, certificate, Rekor bundle).
type CosignSignature struct {
	Payload     []byte
	Annotations map[string]string
}

// SimpleSigningPayload is the payload `cosign sign` signs for the image
// dockerRef ("host/repo") at digest.
func SimpleSigningPayload(dockerRef, digest string) []byte {
	var p struct {
		Critical struct {
			Identity struct {
				DockerReference string `json:"docker-reference"`
			} `json:"identity"`
			Image struct {
				DockerManifestDigest string `json:"docker-manifest-digest"`
			} `json:"image"`
			Type string `json:"type"`
		} `json:"critical"`
		Optional map[string]any `json:"optional"`
	}
	p.Critical.Identity.DockerReference = dockerRef
	p.Critical.Image.DockerManifestDigest = digest
	p.Critical.Type = "cosign container image signature"
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // a fixed struct of strings always marshals
	}
	return b
}

// SigTag is signature.SigTag for a digest as Push returns it: the tag
// under which cosign stores the signatures of digest. A digest that does
// not parse is the test's own mistake and panics, as in a helper without
// a testing.TB.
func SigTag(digest string) string {
	h, err := v1.NewHash(digest)
	if err != nil {
		panic(fmt.Sprintf("registrytest.SigTag(%q): %v", digest, err))
	}
	return signature.SigTag(h)
}

// PushSignatures pushes a cosign signature manifest for digest in repo
// under SigTag(digest), one layer per signature, replacing any there. It
// returns the signature manifest's digest.
func (s *Server) PushSignatures(t testing.TB, repo, digest string, sigs ...CosignSignature) string {
	t.Helper()
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for _, sig := range sigs {
		var err error
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:       static.NewLayer(sig.Payload, signature.SimpleSigningMediaType),
			Annotations: sig.Annotations,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s.Push(t, repo, SigTag(digest), img)
}

// NewKey makes a cosign key pair: the ECDSA P-256 private key for
// SignWithKey and the PEM public key a policy names (cosign.pub).
func NewKey(t testing.TB) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

// SignWithKey signs digest in repo with key as `cosign sign --key
// --tlog-upload=false` does (an ECDSA or RSA signature over the SHA-256 of
// the simple-signing payload) and pushes it with PushSignatures.
func (s *Server) SignWithKey(t testing.TB, repo, digest string, key crypto.Signer) string {
	t.Helper()
	payload := SimpleSigningPayload(s.Host()+"/"+repo, digest)
	sum := sha256.Sum256(payload)
	sig, err := key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return s.PushSignatures(t, repo, digest, CosignSignature{
		Payload:     payload,
		Annotations: map[string]string{signature.SignatureAnnotation: base64.StdEncoding.EncodeToString(sig)},
	})
}

// PushReferrer pushes an OCI 1.1 artifact manifest whose subject is
// digest in repo, as cosign does for a Sigstore bundle: an empty config,
// one layer holding blob, artifactType and annotations on the manifest.
// go-containerregistry's remote.Put then updates the referrers tag schema
// index when the server lacks the referrers API (see WithReferrersAPI).
// It returns the artifact manifest's digest.
func (s *Server) PushReferrer(t testing.TB, repo, digest, artifactType string, blob []byte, blobMediaType string, annotations map[string]string) string {
	t.Helper()
	subject, err := name.NewDigest(s.Host() + "/" + repo + "@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	opt := remote.WithTransport(pushTransport{s.pushRT})
	sub, err := remote.Head(subject, opt)
	if err != nil {
		t.Fatalf("head %s: %v", subject, err)
	}
	config := static.NewLayer([]byte("{}"), emptyConfigMediaType)
	layer := static.NewLayer(blob, types.MediaType(blobMediaType))
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  artifactType,
		Config:        descriptor(t, config),
		Layers:        []v1.Descriptor{descriptor(t, layer)},
		Subject:       &v1.Descriptor{MediaType: sub.MediaType, Digest: sub.Digest, Size: sub.Size},
		Annotations:   annotations,
	}
	for _, l := range []v1.Layer{config, layer} {
		if err := remote.WriteLayer(subject.Context(), l, opt); err != nil {
			t.Fatalf("push blob to %s: %v", subject.Context(), err)
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := v1.SHA256(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Put(subject.Context().Digest(h.String()), rawManifest(raw), opt); err != nil {
		t.Fatalf("push referrer of %s: %v", subject, err)
	}
	return h.String()
}

func descriptor(t testing.TB, l v1.Layer) v1.Descriptor {
	t.Helper()
	h, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	size, err := l.Size()
	if err != nil {
		t.Fatal(err)
	}
	mt, err := l.MediaType()
	if err != nil {
		t.Fatal(err)
	}
	return v1.Descriptor{MediaType: mt, Digest: h, Size: size}
}

// rawManifest is an OCI image manifest given as bytes, for remote.Put.
type rawManifest []byte

func (m rawManifest) RawManifest() ([]byte, error)        { return m, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
