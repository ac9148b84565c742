package job

import (
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

const actionsIssuer = "https://token.actions.githubusercontent.com"

func testEngine(cfg *config.Config) (*engine, error) {
	return engineFor(&Options{}, cfg, fstest.MapFS{}, "repo", (&Options{}).logger())
}

// TestSignatureIdentityOncePerConfig: a keyless identity is compiled once
// per config, whatever the number of images its policy covers.
func TestSignatureIdentityOncePerConfig(t *testing.T) {
	cfg := &config.Config{File: "repo/.imagebot.yaml", Policies: []config.Policy{
		{Line: 2, Match: "ghcr.io/acme/**", Signature: &config.Signature{Identity: `https://github\.com/acme/.+`, Issuer: actionsIssuer}},
	}}
	e, err := testEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gates := e.gates()
	web, api := gates("ghcr.io/acme/web", "app.yaml").Signature, gates("ghcr.io/acme/api", "app.yaml").Signature
	if web == nil || api == nil || web.Identity == nil {
		t.Fatalf("gates: web %+v, api %+v: want a keyless signature gate on both", web, api)
	}
	if web.Identity != api.Identity {
		t.Error("the identity was compiled once per image, want once per config")
	}
	// Anchored at both ends, as config.Signature.IdentityRegexp says.
	if web.Identity.MatchString("https://evil.example/?https://github.com/acme/x") || !web.Identity.MatchString("https://github.com/acme/x") {
		t.Errorf("identity %s: want it anchored at both ends", web.Identity)
	}
}

// TestSignatureIdentityInvalid: an identity that does not compile stops
// the command before any lookup, naming the config file and the policy's
// line, once per policy.
func TestSignatureIdentityInvalid(t *testing.T) {
	cfg := &config.Config{File: "repo/.imagebot.yaml", Policies: []config.Policy{
		{Line: 2, Match: "ghcr.io/acme/**", Signature: &config.Signature{Identity: `https://github\.com/(acme`, Issuer: actionsIssuer}},
	}}
	_, err := testEngine(cfg)
	want := "repo/.imagebot.yaml:2: signature identity \"https://github\\\\.com/(acme\": error parsing regexp: missing closing ): `https://github\\.com/(acme`: write an RE2 regexp of the signer's certificate identity"
	if err == nil || err.Error() != want {
		t.Fatalf("engineFor = %v\nwant %s", err, want)
	}
}

// TestPoliciesFromConfig: each image's policy is the config's merged
// policies (config.Resolved.Spec) compiled by policy.New, once per image.
func TestPoliciesFromConfig(t *testing.T) {
	patch := "patch"
	cfg := &config.Config{Policies: []config.Policy{{Match: "ghcr.io/acme/**", Allow: &patch}}}
	e, err := testEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	policies := e.policies()
	for img, want := range map[string]string{"ghcr.io/acme/web": "1.2.4", "ghcr.io/other/web": "2.0.0"} {
		p, err := policies(img, "app.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := policies(img, "other.yaml"); again != p {
			t.Errorf("%s: the policy was compiled twice", img)
		}
		if got, _, err := p.Latest("1.2.3", []string{"1.2.3", "1.2.4", "1.3.0", "2.0.0"}); err != nil || got != want {
			t.Errorf("%s: Latest = %q, %v; want %q", img, got, err, want)
		}
	}
}
