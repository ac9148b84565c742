package gate

import "time"

// Evidence is what the gates saw of the image an update moves to: the
// plan carries it (JSON "evidence") and the pull request shows it. Only
// the gates the policy asks for leave evidence.
type Evidence struct {
	// Digest is the digest the gates inspected.
	Digest string `json:"digest"`
	// Age is minAge's: the build time of the image.
	Age *AgeEvidence `json:"age,omitempty"`
	// Settled is digestSettle's: the build time of the newest platform
	// image behind a new digest of the current tag.
	Settled   *AgeEvidence       `json:"settled,omitempty"`
	Platforms *PlatformsEvidence `json:"platforms,omitempty"`
	Signature *Signer            `json:"signature,omitempty"`
}

// AgeEvidence is a build time that a gate accepted.
type AgeEvidence struct {
	Created time.Time `json:"created"`
	// From is where Created was read: FromConfig, FromAnnotation or
	// FromLabel ("" for digestSettle's newest platform image).
	From string `json:"from,omitempty"`
	// Limit is the policy's minAge or digestSettle ("3d"): Created is at
	// least that long before the plan. The age itself is not kept, so
	// that a plan (and a PR body) does not change with the clock alone.
	Limit string `json:"limit"`
	// FirstSeen is when imagebot first saw the digest, where that is
	// recorded (the dashboard); minAge counted from it when it is later
	// than Created and after the repository's first recorded run.
	FirstSeen *time.Time `json:"firstSeen,omitempty"`
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
