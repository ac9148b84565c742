package inspect_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

const (
	repo   = "ghcr.io/acme/api"
	issuer = "https://token.actions.githubusercontent.com"
	signer = "https://github.com/acme/api/.github/workflows/release.yml@refs/tags/v1.0.0"
)

func client(srv *registrytest.Server) *registry.Client {
	return registry.NewClient(
		registry.WithMirrors(map[string]string{"ghcr.io": srv.URL()}),
		registry.WithKeychain(authn.NewMultiKeychain()),
	)
}

// noCTLog is a VirtualSigstore as trusted material without its CT log:
// its certificates carry no SCT, which Fulcio's always do.
type noCTLog struct{ root.TrustedMaterial }

func (noCTLog) CTLogs() map[string]*root.TransparencyLog { return nil }

func TestVerify(t *testing.T) {
	srv := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	push := func(tag string) string {
		return srv.Push(t, "acme/api", tag, registrytest.Image(t, tag, created, nil))
	}
	key, pub := registrytest.NewKey(t)
	other, _ := registrytest.NewKey(t)
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	keySigned, otherKey, keyless, unsigned := push("1.0.0"), push("1.1.0"), push("1.2.0"), push("1.3.0")
	srv.SignWithKey(t, "acme/api", keySigned, key)
	srv.SignWithKey(t, "acme/api", otherKey, other)
	srv.SignKeyless(t, "acme/api", keyless, vs, signer, issuer)

	ins := inspect.New(client(srv), inspect.WithKeys(fstest.MapFS{"keys/cosign.pub": {Data: pub}}), inspect.WithTrustedMaterial(noCTLog{vs}))
	byKey := gate.Signature{Key: "keys/cosign.pub"}
	byWorkflow := gate.Signature{Identity: regexp.MustCompile(`^https://github\.com/acme/.+$`), Issuer: issuer}
	byOther := gate.Signature{Identity: regexp.MustCompile(`^https://github\.com/evil/.+$`), Issuer: issuer}
	tests := []struct {
		name    string
		digest  string
		sig     gate.Signature
		want    gate.Signer
		wantErr error
		inErr   string
	}{
		{"key", keySigned, byKey, gate.Signer{Method: "sig-tag", Signer: "key SHA256:"}, nil, ""},
		{"another key", otherKey, byKey, gate.Signer{}, gate.ErrRejected, "want key SHA256:"},
		{"unsigned", unsigned, byKey, gate.Signer{}, gate.ErrUnsigned, "sha256-"},
		{"keyless", keyless, byWorkflow, gate.Signer{Method: "sig-tag", Signer: signer, Issuer: issuer}, nil, ""},
		{"keyless, another identity", keyless, byOther, gate.Signer{}, gate.ErrRejected, "signed by " + signer},
		{"keyless wanted, key signed", keySigned, byWorkflow, gate.Signer{}, gate.ErrRejected, "signed with a key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ins.Verify(t.Context(), registrytest.Digest(t, repo, tc.digest), tc.sig)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tc.inErr) {
				t.Errorf("Verify = %v, want it to say %q", err, tc.inErr)
			}
			if got.Method != tc.want.Method || !strings.HasPrefix(got.Signer, tc.want.Signer) || got.Issuer != tc.want.Issuer {
				t.Errorf("Verify = %+v, want %+v", got, tc.want)
			}
			if held, err := gate.CheckSignature(err); (held == "") != (tc.wantErr == nil) || err != nil {
				t.Errorf("CheckSignature = %q, %v", held, err)
			}
		})
	}
}

func TestCheckKey(t *testing.T) {
	_, pub := registrytest.NewKey(t)
	srv := registrytest.NewServer(t)
	keys := fstest.MapFS{"keys/cosign.pub": {Data: pub}, "keys/garbage.pub": {Data: []byte("not a key")}}
	ins := inspect.New(client(srv), inspect.WithKeys(keys))
	tests := []struct {
		key, want string
	}{
		{"keys/cosign.pub", ""},
		{"keys/missing.pub", "signature key keys/missing.pub: no such file in the repository (key paths are relative to its root)"},
		{"keys/garbage.pub", "signature key keys/garbage.pub: signature policy: key is not a PEM public key"},
	}
	for _, tc := range tests {
		err := ins.Check(t.Context(), gate.Signature{Key: tc.key})
		if (err == nil) != (tc.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("Check(%s) = %v, want %q", tc.key, err, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("checking keys sent %d registry requests", n)
	}
	// Keyless policies are not checked up front: the trust root is
	// fetched only when a candidate needs it.
	if err := ins.Check(t.Context(), gate.Signature{Identity: regexp.MustCompile(".*"), Issuer: issuer}); err != nil {
		t.Errorf("Check(keyless) = %v", err)
	}
}
