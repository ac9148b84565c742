package gate

import "io/fs"

// ErrNotFound is wrapped by the errors of an Inspector asked for an image
// the registry does not have (a 404), as opposed to a registry that could
// not be asked. It is fs.ErrNotExist, as os.ErrNotExist is, so that the
// registry client, a lower room, can say "not found" without importing
// the gates.
var ErrNotFound = fs.ErrNotExist
