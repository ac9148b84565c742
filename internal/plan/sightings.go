package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

// Sightings: when imagebot first saw each candidate digest (DESIGN.md
// "Release age"). A publisher writes an image's created time, and can
// backdate it; it cannot backdate when imagebot first saw the digest. The
// record lives with the caller (the dashboard issue's marker): Build is
// given what earlier runs recorded (Options.FirstSeen) and returns what
// this run saw (Plan.Seen), to be recorded in turn.

// Held is a candidate a gate held back, for the dashboard: which gate,
// since when imagebot has seen it, and when minAge lets it through.
type Held struct {
	Image  string
	Tag    string
	Digest string
	Gate   string    // minAge, digestSettle, platforms or signature
	Why    string    // the gate's words: "5h old, minAge 3d"
	Seen   time.Time // first seen; zero when nothing is recorded
	Passes time.Time // when minAge passes, if that is what holds it; else zero
}

// sightings is one Build's view of the record; deciders run concurrently.
type sightings struct {
	mu    sync.Mutex
	known map[string]time.Time // recorded by earlier runs
	since time.Time            // the first recorded run; zero: none yet
	now   time.Time
	seen  map[string]time.Time // this run's candidates: the next record
	held  []Held
}

func newSightings(o Options) *sightings {
	if o.FirstSeen == nil {
		return nil // nothing is recorded: minAge trusts created alone
	}
	return &sightings{known: o.FirstSeen, since: o.SeenSince, now: o.now, seen: map[string]time.Time{}}
}

// firstSeen records digest as a candidate of this run and returns when it
// was first seen, and whether that time bounds its age: a digest already
// there at the first recorded run (or seen in it) is measured from created
// alone, since nobody saw it arrive.
func (s *sightings) firstSeen(digest string) (first time.Time, counts bool) {
	if s == nil || digest == "" {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first, ok := s.known[digest]
	if !ok {
		first = s.now
	}
	if old, ok := s.seen[digest]; !ok || first.Before(old) {
		s.seen[digest] = first
	}
	return first, !s.since.IsZero() && first.After(s.since)
}

// sightingKey is what a candidate's first sighting is recorded under:
// its digest; for a version that has none, a chart whose repository's
// index.yaml gives no digest, a sha256 of the repository it is decided
// under (which names the chart repository and the chart: httpRepo) and
// the version. Without it such a version was never recorded, and minAge
// read the publisher's created alone, which the publisher can backdate.
// The key has a digest's form, so the record (the dashboard's marker)
// keeps it as it keeps digests. "" (nothing recorded) for a digest
// reference without a digest, which names no version.
func sightingKey(repo name.Repository, ref name.Reference, digest string) string {
	if digest != "" {
		return digest
	}
	tag := tagOf(ref)
	if tag == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("imagebot version sighting\x00" + repo.Name() + "\x00" + tag))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (s *sightings) hold(h Held) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = append(s.held, h)
}
