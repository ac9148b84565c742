// Package config loads .imagebot.yaml, the file that steers imagebot in the
// repository it updates: registry mirrors and credentials (by environment
// variable name, never the secret itself), per-image policies, which files to
// scan, the serve schedule, and how commits and pull requests look.
//
// Loading is strict. The YAML node tree is walked against the Go types before
// anything is used, so every unknown key, wrong type and invalid value in the
// file is reported at once, each as file:line:col with a hint (see Errors).
// A file that loads is one the rest of the pipeline can use without checking
// again: patterns compile, ranges parse, enums hold known values.
//
// The package reads the one file it is given and nothing else: it does no
// network I/O, reads no environment variables (PasswordEnv is only a name)
// and imports no other imagebot package.
//
// A JSON Schema of the same format lives in schema/imagebot.schema.json for
// editors (`# yaml-language-server: $schema=...`); a test keeps it in step
// with the types here.
package config
