// Package dashboard holds the pure parts of imagebot's dashboard issue
// (DESIGN.md "Dashboard and limits"): it renders the body from a
// View, reads the controls (ticked checkboxes) back from a body, and
// encodes and decodes the hidden marker that carries the state imagebot
// keeps on GitHub (when it first saw each candidate digest).
//
// A body is user input: people tick boxes, and may edit it into anything.
// Parse and Decode never fail: what they cannot read is no control and no
// state, and a caller rebuilds the state from the pull requests. This
// package does no I/O; internal/gitops finds, creates and edits the issue
// and decides which controls count (only the bot's own issue's).
package dashboard
