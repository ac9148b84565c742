package main

import (
	"io"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

const actionsIssuer = "https://token.actions.githubusercontent.com"

func testEngine(cfg *config.Config) (*engine, error) {
	o := newCommonOptions(&factory{IO: iostreams{Out: io.Discard, ErrOut: io.Discard}})
	return engineFor(o, cfg, fstest.MapFS{}, "repo", slog.New(slog.DiscardHandler))
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
