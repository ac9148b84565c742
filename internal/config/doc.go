// Package config loads .imagebot.yaml, the file that steers imagebot in the
// repository it updates: registry mirrors, credentials (by environment
// variable name, never the secret itself) and request limits; per-image
// policies and their gates (minimum age, platforms, digest settling,
// signatures); groups, environments and pre-pulls for rollouts; which files
// to scan and how large they may be; the serve schedule; and how commits and
// pull requests look.
//
// Loading is strict. The YAML node tree is walked against the Go types before
// anything is used, so every unknown key, wrong type and invalid value in the
// file is reported at once, each as file:line:col with a hint (see Errors).
// A file that loads is one the rest of the pipeline can use without checking
// again: globs and patterns compile, ranges parse, enums hold known values,
// environments promote without cycles. The keys that internal/policy
// interprets are checked by compiling them with policy.New, so `validate`
// and `plan` cannot disagree about a policy.
//
// The accessors answer per image or file: For (the merged policies),
// GroupFor, EnvironmentFor and Prepull.Matches.
//
// The package reads the one file it is given and nothing else: it does no
// network I/O, reads no environment variables (PasswordEnv is only a name),
// never follows a link out of the repository, and of imagebot imports only
// internal/policy, which is pure. Find and LoadIn read from a checkout,
// FindFS and LoadFS from any fs.FS, such as the tree of the commit a run
// plans from.
//
// A JSON Schema of the same format lives in schema/imagebot.schema.json for
// editors (`# yaml-language-server: $schema=...`); a test keeps it in step
// with the types here.
package config
