package main

// The git hosts' drivers, linked here where the program is put together:
// job and the lifecycle open a host through forge.Open, never importing
// a host's SDK themselves.
import _ "github.com/imagebot/imagebot/internal/gitops/forge/hosts"
