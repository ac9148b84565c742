package gate

import "time"

// Evidence is what the gates saw of the image an update moves to: the
// plan carries it (JSON "evidence") and the pull request shows it. Only
// the gates the policy asks for leave evidence.
type Evidence struct {
	// Digest is the digest the gates inspected.
	Digest    string             `json:"digest"`
	Age       *AgeEvidence       `json:"age,omitempty"`
	Platforms *PlatformsEvidence `json:"platforms,omitempty"`
	Signature *Signer            `json:"signature,omitempty"`
}

// AgeEvidence is the build time that minAge or digestSettle accepted.
type AgeEvidence struct {
	Created time.Time `json:"created"`
	From    string    `json:"from"` // FromConfig, FromAnnotation or FromLabel
	// Age is the age at planning time ("4d3h"). It changes from run to
	// run, so the pull request shows Created and the limit instead.
	Age          string `json:"age"`
	MinAge       string `json:"minAge,omitempty"`
	DigestSettle string `json:"digestSettle,omitempty"`
}

// PlatformsEvidence is the platforms gate's view: what the candidate has
// and what was wanted.
type PlatformsEvidence struct {
	Have []string `json:"have"`
	Want []string `json:"want"`
	// Keep is true when Want are the current image's platforms (keep),
	// false when they are the policy's list.
	Keep bool `json:"keep,omitempty"`
	// Unknown is set when keep could not read the current image (gone
	// from the registry): nothing was compared.
	Unknown string `json:"unknown,omitempty"`
}
