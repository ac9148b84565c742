package imagefacts

import (
	"context"
	"sync/atomic"
	"time"
)

// Need says which facts a caller wants, so that an image's config is
// fetched only when a gate reads it.
type Need uint8

const (
	// NeedCreated asks for the created time: the image config's (for an
	// index, its first platform's), else the created annotation.
	NeedCreated Need = 1 << iota
	// NeedPlatforms asks for the platforms: an index lists them, a single
	// image's config names its one.
	NeedPlatforms
	// NeedNewest asks for the newest created time among every platform
	// image of an index, which a re-push of one platform moves.
	NeedNewest
)

// Where a created time was read.
const (
	FromConfig     = "config"     // the image config's created
	FromAnnotation = "annotation" // org.opencontainers.image.created on the manifest or index
	FromLabel      = "label"      // the same key among the config's labels
)

// Facts is what a registry says about one image: a tag's or a digest's
// manifest and, when needed, its config.
type Facts struct {
	// Digest is the manifest digest ("sha256:..."); for a multi-platform
	// image, the index digest, which is what a reference pins and what
	// cosign signs.
	Digest string
	// Created is when the image was built, read from CreatedFrom; when no
	// source has a known time (see Known), it is what the config says,
	// kept for messages, and CreatedFrom is "".
	Created     time.Time
	CreatedFrom string
	// Newest is the newest known created time among the platform images
	// of an index (the image's own for a single image); zero if none is
	// known. Set only for NeedNewest.
	Newest time.Time
	// Platforms are "os/arch[/variant]" as the registry spells them.
	Platforms []string
}

// Known reports whether t is a real build time. Reproducible builds write
// the Unix epoch (SOURCE_DATE_EPOCH=0) or leave Go's zero time: such an
// image's age is unknown, not 55 years.
func Known(t time.Time) bool { return t.Year() > 1970 }

// Requests counts the manifest and blob requests made on behalf of a
// context (WithRequests), so that a caller can say what one step cost
// when other steps share the client: the registry client adds to it.
type Requests struct{ n atomic.Int64 }

// Add counts n more requests.
func (r *Requests) Add(n int) { r.n.Add(int64(n)) }

// N is how many were counted.
func (r *Requests) N() int { return int(r.n.Load()) }

type requestsKey struct{}

// WithRequests returns ctx counting into r.
func WithRequests(ctx context.Context, r *Requests) context.Context {
	return context.WithValue(ctx, requestsKey{}, r)
}

// RequestsOf is the counter of ctx, nil if none.
func RequestsOf(ctx context.Context) *Requests {
	r, _ := ctx.Value(requestsKey{}).(*Requests)
	return r
}
