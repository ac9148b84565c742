package githubtest

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitHub signs the commits that bots create through the API with its own
// "web-flow" key, and shows them Verified. The fake does the same with a
// key of its own, made on first use (Ed25519: instant, unlike RSA).

// signer returns the fake's web-flow key; the caller holds s.mu.
func (s *Server) signer() (*openpgp.Entity, error) {
	if s.webFlow != nil {
		return s.webFlow, nil
	}
	// Made "in 2020", so that the key is older than any commit in any
	// clock a test sets.
	e, err := openpgp.NewEntity("GitHub", "web-flow commit signing", "noreply@github.com",
		&packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Time: func() time.Time { return keyCreated }})
	if err != nil {
		return nil, err
	}
	s.webFlow = e
	return e, nil
}

// keyCreated is when the web-flow key was made, as its packets say.
var keyCreated = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// SigningKey is the armored public key the fake signs API commits with,
// for go-git's Commit.Verify: a test can check a commit it fetched over
// git, not only what the API says of it. Signatures are made in the
// fake's clock, and Verify checks them against the wall clock: one made
// in a clock set ahead of it reads as expired.
func (s *Server) SigningKey() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.armoredKey()
}

// armoredKey is SigningKey for a caller that holds s.mu.
func (s *Server) armoredKey() (string, error) {
	e, err := s.signer()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	w, err := armor.Encode(&b, openpgp.PublicKeyType, nil)
	if err != nil {
		return "", err
	}
	if err := e.Serialize(w); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// sign sets c's signature over its encoding without one; the caller holds
// s.mu.
func (s *Server) sign(c *object.Commit) error {
	e, err := s.signer()
	if err != nil {
		return err
	}
	payload := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(payload); err != nil {
		return err
	}
	rd, err := payload.Reader()
	if err != nil {
		return err
	}
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, e, rd, &packet.Config{Time: s.clock}); err != nil {
		return fmt.Errorf("sign commit: %w", err)
	}
	c.PGPSignature = sig.String()
	return nil
}

// verification is GitHub's verdict on a commit's signature; the caller
// holds s.mu.
func (s *Server) verification(c *object.Commit) verificationJSON {
	if c.PGPSignature == "" {
		return verificationJSON{Reason: "unsigned"}
	}
	v := verificationJSON{Reason: "unknown_key", Signature: &c.PGPSignature}
	payload := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(payload); err == nil {
		if rd, err := payload.Reader(); err == nil {
			b, _ := io.ReadAll(rd)
			p := string(b)
			v.Payload = &p
		}
	}
	e, err := s.signer()
	if err != nil || v.Payload == nil {
		return v
	}
	// go-git's Commit.Verify would check in the wall clock; GitHub checks
	// in its own, which for the fake is the fake's.
	_, err = openpgp.CheckArmoredDetachedSignature(openpgp.EntityList{e}, strings.NewReader(*v.Payload),
		strings.NewReader(c.PGPSignature), &packet.Config{Time: s.clock})
	if err == nil {
		v.Verified, v.Reason = true, "valid"
		at := stamp(c.Committer.When)
		v.VerifiedAt = &at
	}
	return v
}
