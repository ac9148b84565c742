package dashboard

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// State is what the marker carries from run to run.
type State struct {
	// Since is the repository's first recorded run: digests first seen
	// then were there before imagebot watched, and keep their created age.
	Since time.Time
	// Seen is when imagebot first saw each candidate digest
	// ("sha256:..."), at second precision.
	Seen map[string]time.Time
	// Queued is since when each branch has waited for a slot, so that
	// the longest waiting opens first as slots free up.
	Queued map[string]time.Time
}

// MaxSeen bounds the digests a marker records, so that the body stays
// far below GitHub's 65,536 characters (about 80 characters each). Beyond
// it the digests first seen longest ago are dropped: they are the ones
// most likely past any minAge already.
const MaxSeen = 300

const markerStart = "<!-- imagebot:dashboard "

// markerRE is the marker's line: encoding/json escapes "<" and ">", so the
// JSON never ends the comment.
var markerRE = regexp.MustCompile(`(?m)^<!-- imagebot:dashboard (\{[^\n]*\}) -->\r?$`)

// wire is the marker's JSON: times as Unix seconds, digests without their
// "sha256:" to save room.
type wire struct {
	V      int              `json:"v"`
	Since  int64            `json:"since"`
	Seen   map[string]int64 `json:"seen,omitempty"`
	Queued map[string]int64 `json:"queued,omitempty"`
}

// Marker is the hidden line that identifies a body as imagebot's
// dashboard and carries st, bounded by MaxSeen.
func Marker(st State) string {
	w := wire{V: 1, Since: st.Since.Unix(), Seen: map[string]int64{}}
	for _, d := range keep(st.Seen, MaxSeen) {
		w.Seen[strings.TrimPrefix(d, "sha256:")] = st.Seen[d].Unix()
	}
	// The longest waiting are the ones the order depends on: beyond the
	// bound, the newest in the queue are forgotten (and queue again).
	if q := keep(st.Queued, len(st.Queued)); len(q) > 0 {
		w.Queued = map[string]int64{}
		for _, b := range q[max(0, len(q)-MaxSeen):] {
			w.Queued[b] = st.Queued[b].Unix()
		}
	}
	b, _ := json.Marshal(w) // sorted keys: the same state, the same line
	return markerStart + string(b) + " -->"
}

// keep is the digests of seen to record, newest sightings first, at most n.
func keep(seen map[string]time.Time, n int) []string {
	ds := slices.Collect(maps.Keys(seen))
	slices.SortFunc(ds, func(a, b string) int { return cmp.Or(seen[b].Compare(seen[a]), strings.Compare(a, b)) })
	return ds[:min(n, len(ds))]
}

// branchName is what a recorded branch may look like: git's characters,
// no space or control character, a bounded length.
var branchName = regexp.MustCompile(`^[A-Za-z0-9._/@+-]{1,255}$`)

// hexDigest is what a recorded digest must look like.
var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Decode reads the state from a body's marker. ok is false when there is
// none, or it cannot be read: then nothing is known. Entries that are not
// digests, or whose time is not after Since's year 2000, are dropped.
func Decode(body string) (st State, ok bool) {
	m := markerRE.FindStringSubmatch(body)
	if m == nil {
		return State{}, false
	}
	var w wire
	if err := json.Unmarshal([]byte(m[1]), &w); err != nil || w.V != 1 || w.Since <= minTime {
		return State{}, false
	}
	st = State{Since: time.Unix(w.Since, 0).UTC(), Seen: map[string]time.Time{}}
	for d, t := range w.Seen {
		if hexDigest.MatchString(d) && t > minTime && t < maxTime {
			st.Seen["sha256:"+d] = time.Unix(t, 0).UTC()
		}
	}
	for b, t := range w.Queued {
		if branchName.MatchString(b) && t > minTime && t < maxTime {
			if st.Queued == nil {
				st.Queued = map[string]time.Time{}
			}
			st.Queued[b] = time.Unix(t, 0).UTC()
		}
	}
	return st, true
}

// Plausible times: after 2000 and before 3000.
const minTime, maxTime = 946684800, 32503680000

// HasMarker reports whether body claims to be a dashboard, readable or not.
func HasMarker(body string) bool { return strings.Contains(body, markerStart) }
