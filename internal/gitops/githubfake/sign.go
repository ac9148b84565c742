package githubfake

import (
	"bytes"
	"fmt"
	"io"

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
	e, err := openpgp.NewEntity("GitHub", "web-flow commit signing", "noreply@github.com",
		&packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Time: s.clock})
	if err != nil {
		return nil, err
	}
	s.webFlow = e
	return e, nil
}

// SigningKey is the armored public key the fake signs API commits with,
// for go-git's Commit.Verify: a test can check a commit it fetched over
// git, not only what the API says of it.
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
	key, err := s.armoredKey()
	if err == nil {
		if _, err := c.Verify(key); err == nil {
			v.Verified, v.Reason = true, "valid"
			at := stamp(c.Committer.When)
			v.VerifiedAt = &at
		}
	}
	return v
}
