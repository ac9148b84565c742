// Package signature checks that an image digest carries a cosign signature
// made by the signer a policy trusts: the holder of a public key, or a
// keyless (Fulcio certificate) identity from an OIDC issuer. It is the
// `signature` gate of the plan: a candidate whose digest fails here is
// passed over, and the PR body shows the Evidence of one that passes.
//
// Both of cosign's storage formats are read, for any OCI registry:
//
//   - the classic signature tag "sha256-<hex>.sig" in the image's
//     repository, a manifest whose layers are simple-signing payloads with
//     the signature, certificate and Rekor bundle in annotations;
//   - OCI 1.1 referrers of the digest holding a Sigstore bundle (cosign v3,
//     `--new-bundle-format`), through the referrers API or, for registries
//     without it, the referrers tag schema ("sha256-<hex>" index tag).
//
// The cryptography is sigstore-go's: certificate chains, SCTs, Rekor entries
// and timestamps are verified by its verify package against injected
// trusted material (TrustedRoot fetches Sigstore's through TUF). This package
// only finds the signatures, binds them to the digest, and says which
// signer was found against which was wanted.
//
// Request cost per verified digest, through the Fetcher (whose
// implementation caches, so a digest costs this at most once per run):
//
//   - signed in the classic format: one manifest GET (the .sig tag) and one
//     blob GET per signature layer examined until one is accepted;
//   - signed with a referrer: the .sig manifest GET (a 404), one referrers
//     GET, and for each Sigstore bundle referrer examined one manifest and
//     one blob GET; a registry without the referrers API adds one manifest
//     GET for the fallback tag;
//   - unsigned: the .sig manifest GET (a 404), the referrers GET (an empty
//     index, or a 404 without the API) and, without the API, the fallback
//     tag GET (a 404): two or three requests.
//
// At most 5 signatures of each format are examined and a blob larger than
// 256 KiB is never fetched, so a digest with hundreds of attached artifacts
// costs a bounded number of requests and bytes; attestations (SBOM,
// provenance) are recognised from the referrers index annotations and never
// fetched.
//
// The package never talks to a registry itself (internal/registry
// implements Fetcher; its only HTTP is TrustedRoot's TUF update), never
// reads configuration files, and never decides what a failed check means
// for the plan.
package signature
