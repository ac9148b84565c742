// Package gate decides whether a candidate image is safe to propose: old
// enough (minAge), built for the platforms the workload runs on
// (platforms), signed by the expected signer (signature), and, for a tag
// whose digest changed under it, settled (digestSettle). A candidate that
// fails a gate is passed over for the next best (internal/plan does the
// walking); the gate says why in words a notice can carry ("5h old,
// minAge 3d"), and what a passing candidate proved becomes the Evidence
// shown in the plan and the pull request.
//
// Each gate is a pure function of Facts (what the registry says about the
// image) and the policy's Spec: no I/O, no clock of its own (the caller
// passes now). Fetching the facts and checking signatures is the job of
// internal/gate/inspect, which the plan reaches through an interface.
package gate
