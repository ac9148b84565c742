package inspect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/safefs"
	"github.com/imagebot/imagebot/internal/signature"
)

// Registry is what an Inspector needs of a registry client
// (internal/registry's Client).
type Registry interface {
	signature.Fetcher
	Facts(ctx context.Context, ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error)
	Exists(ctx context.Context, ref name.Digest) (bool, error)
}

// Inspector answers the plan's gates. It is safe for concurrent use; make
// one per run, with the run's registry client.
type Inspector struct {
	reg   Registry
	keys  fs.FS
	trust *Trust

	mu        sync.Mutex
	verifiers map[string]*verifier
}

type verifier struct {
	once sync.Once
	v    *signature.Verifier
	err  error
}

// Option configures an Inspector.
type Option func(*Inspector)

// WithKeys reads the public keys that policies name (signature.key, a
// path relative to the repository root) from fsys: the tree being planned.
func WithKeys(fsys fs.FS) Option { return func(i *Inspector) { i.keys = fsys } }

// WithTrustedMaterial verifies keyless signatures against tm instead of
// a trust root fetched through TUF (a VirtualSigstore in tests).
func WithTrustedMaterial(tm root.TrustedMaterial) Option {
	return func(i *Inspector) { i.trust = &Trust{tm: tm} }
}

// WithTrust verifies keyless signatures against t, which other Inspectors
// may share (default: Sigstore's public-good trust root, kept in
// DefaultCacheDir).
func WithTrust(t *Trust) Option { return func(i *Inspector) { i.trust = t } }

// New returns an Inspector over reg.
func New(reg Registry, opts ...Option) *Inspector {
	i := &Inspector{reg: reg, verifiers: map[string]*verifier{}}
	for _, opt := range opts {
		opt(i)
	}
	if i.trust == nil {
		i.trust = NewTrust(signature.TUF{}, DefaultCacheDir())
	}
	return i
}

// Facts is the registry's Facts.
func (i *Inspector) Facts(ctx context.Context, ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error) {
	return i.reg.Facts(ctx, ref, need)
}

// Exists is the registry's Exists.
func (i *Inspector) Exists(ctx context.Context, ref name.Digest) (bool, error) {
	return i.reg.Exists(ctx, ref)
}

// Verify checks that the image ref names carries a signature sig accepts. The
// error wraps gate.ErrUnsigned when there is none, gate.ErrRejected when
// none is acceptable (saying whose were found and what was wanted), and is
// any other error when the policy or the registry failed.
func (i *Inspector) Verify(ctx context.Context, ref name.Digest, sig gate.Signature) (gate.Signer, error) {
	v, err := i.verifier(ctx, sig)
	if err != nil {
		return gate.Signer{}, err
	}
	ev, err := v.Verify(ctx, i.reg, ref)
	var rej *signature.RejectedError
	switch {
	case err == nil:
		return gate.Signer{Method: ev.Method, Signer: ev.Signer, Issuer: ev.Issuer}, nil
	case errors.Is(err, signature.ErrUnsigned):
		return gate.Signer{}, fmt.Errorf("%w: %v", gate.ErrUnsigned, err)
	case errors.As(err, &rej):
		return gate.Signer{}, fmt.Errorf("%w: %s", gate.ErrRejected, rej.Reasons())
	}
	return gate.Signer{}, err
}

// Check prepares the verifier of sig now: a key that is missing or not a
// public key fails the run at start, not reference by reference. Keyless
// policies are checked when first used, as they need the trust root.
func (i *Inspector) Check(ctx context.Context, sig gate.Signature) error {
	if sig.Key == "" {
		return nil
	}
	_, err := i.verifier(ctx, sig)
	return err
}

// verifier returns the one verifier of sig, built on first use.
func (i *Inspector) verifier(ctx context.Context, sig gate.Signature) (*signature.Verifier, error) {
	id := "key " + sig.Key
	if sig.Key == "" {
		id = fmt.Sprintf("keyless %s %s", sig.Identity, sig.Issuer)
	}
	i.mu.Lock()
	e, ok := i.verifiers[id]
	if !ok {
		e = &verifier{}
		i.verifiers[id] = e
	}
	i.mu.Unlock()
	e.once.Do(func() { e.v, e.err = i.build(ctx, sig) })
	return e.v, e.err
}

func (i *Inspector) build(ctx context.Context, sig gate.Signature) (*signature.Verifier, error) {
	if sig.Key != "" {
		pem, err := i.readKey(sig.Key)
		if err != nil {
			return nil, fmt.Errorf("signature key %s: %w", sig.Key, err)
		}
		v, err := signature.NewVerifier(signature.Policy{Key: pem}, nil)
		if err != nil {
			return nil, fmt.Errorf("signature key %s: %w", sig.Key, err)
		}
		return v, nil
	}
	tm, err := i.trust.material(ctx)
	if err != nil {
		return nil, err
	}
	return signature.NewVerifier(signature.Policy{Identity: sig.Identity, Issuer: sig.Issuer}, tm)
}

// maxKeySize bounds a key file: a PEM public key is a few hundred bytes.
const maxKeySize = 64 << 10

func (i *Inspector) readKey(path string) ([]byte, error) {
	if i.keys == nil {
		return nil, errors.New("no repository to read keys from")
	}
	// safefs refuses a named pipe before opening it (it would block the
	// run forever); the FS itself keeps links inside the repository.
	b, err := safefs.ReadFS(i.keys, path, maxKeySize)
	var tl *safefs.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no such file in the repository (key paths are relative to its root)")
	case errors.Is(err, safefs.ErrOutside):
		return nil, errors.New("links outside the repository, where imagebot reads no key")
	case errors.Is(err, safefs.ErrNotRegular):
		return nil, errors.New("is not a regular file (a named pipe, device or directory)")
	case errors.As(err, &tl):
		return nil, fmt.Errorf("larger than %d bytes: not a public key", maxKeySize)
	}
	return b, err
}
