// Package inspect is how the plan's gates reach the world: image facts
// and digest existence from the registry client, and signature checks by
// internal/signature over that same client, with one verifier per
// signature policy. A key is read from the repository being planned (the
// working tree for plan and apply, the default branch's tree for run);
// the Sigstore trust root, which only keyless policies need, is fetched
// through TUF only when such a policy is used, once per Trust (shared by
// the Inspectors of one run), and kept in the Trust's directory so that
// the next run within a day needs no network.
//
// It translates the signature package's outcomes into the gate's words
// (gate.ErrUnsigned, gate.ErrRejected) and decides nothing itself: which
// candidate is held is the plan's business.
package inspect
