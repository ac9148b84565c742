package dashboard

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// State is what the marker carries from run to run.
type State struct {
	// Since is the repository's first recorded run: digests first seen
	// then were there before imagebot watched, and keep their created age.
	Since time.Time
	// Seen is when imagebot first saw each candidate, at second
	// precision, by digest ("sha256:..."); a version that has none (a
	// chart whose index gives no digest) by its sighting key, a sha256 of
	// what names it (plan's sightingKey).
	Seen map[string]time.Time
	// Queued is since when each branch has waited for a slot, so that
	// the longest waiting opens first as slots free up.
	Queued map[string]time.Time
}

// MaxMarker bounds the marker line, in bytes, so that the body fits
// every host's limit (Render): half of GitHub's 65,536 characters, the
// smallest of them, about 400 first sightings. Beyond it, entries are
// left out, and what is left out never loosens a gate (see Marker).
const MaxMarker = 32 << 10

const markerStart = "<!-- imagebot:dashboard "

// markerRE is the marker's line: encoding/json escapes "<" and ">", so the
// JSON never ends the comment.
var markerRE = regexp.MustCompile(`^<!-- imagebot:dashboard (\{[^\n]*\}) -->$`)

// wire is the marker's JSON: times as Unix seconds, digests without their
// "sha256:" to save room.
type wire struct {
	V      int              `json:"v"`
	Since  int64            `json:"since"`
	Seen   map[string]int64 `json:"seen,omitempty"`
	Queued map[string]int64 `json:"queued,omitempty"`
}

// Marker is the hidden line that identifies a body as imagebot's
// dashboard and carries st, in at most MaxMarker bytes. Entries Decode
// would drop are not written.
//
// When st holds more than fits, the first sightings are kept first,
// longest ago first, then the queue, longest waiting first; the newest
// of each are left out. Leaving a sighting out never lets an update pass
// minAge earlier: a digest the record lacks is first seen by the run that
// sees it next, later than it was, and that run is after Since, so its
// sighting counts (plan's sightings). Dropping the newest costs the least
// (an update waits again for at most what it had waited), keeps the
// longest-held closest to passing, and a publisher who floods new digests
// pushes out only new ones, its own. Leaving a branch out of the queue
// only puts it at the back of the queue.
func Marker(st State) string {
	w := wire{V: 1, Since: st.Since.Unix()}
	// Room for the fixed parts: the comment, v, since and both keys.
	room := MaxMarker - len(markerStart) - len(" -->") - len(`{"v":1,"since":,"seen":{},"queued":{}}`) - 20
	w.Seen, room = fit(st.Seen, room, func(d string) (string, bool) {
		h := strings.TrimPrefix(d, "sha256:")
		return h, hexDigest.MatchString(h)
	})
	w.Queued, _ = fit(st.Queued, room, func(b string) (string, bool) { return b, branchName.MatchString(b) })
	b, _ := json.Marshal(w) // sorted keys: the same state, the same line
	return markerStart + string(b) + " -->"
}

// fit is the entries of m to write, oldest first, in room bytes of JSON
// (key, colon, seconds, comma; keys need no escaping), and the room left.
// key is an entry's key as written, and whether Decode would keep it.
func fit(m map[string]time.Time, room int, key func(string) (string, bool)) (map[string]int64, int) {
	ks := slices.Collect(maps.Keys(m))
	slices.SortFunc(ks, func(a, b string) int { return cmp.Or(m[a].Compare(m[b]), strings.Compare(a, b)) })
	var out map[string]int64
	for _, k := range ks {
		wk, ok := key(k)
		t := m[k].Unix()
		if !ok || t <= minTime || t >= maxTime {
			continue
		}
		n := len(wk) + len(`"":,`) + len(strconv.FormatInt(t, 10))
		if n > room {
			break
		}
		if out == nil {
			out = map[string]int64{}
		}
		out[wk], room = t, room-n
	}
	return out, room
}

// branchName is what a recorded branch may look like: git's characters,
// no space or control character, a bounded length.
var branchName = regexp.MustCompile(`^[A-Za-z0-9._/@+-]{1,255}$`)

// hexDigest is what a recorded digest must look like.
var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Decode reads the state from a body's marker, which is its last line
// (Render writes it there; trailing blank lines and a CR are allowed, as
// editors leave them). A marker-like line anywhere else is never read: it
// is not the bot's. ok is false when there is none, or it cannot be read:
// then nothing is known. Entries that are not digests, or whose time is
// not after Since's year 2000, are dropped.
func Decode(body string) (st State, ok bool) {
	m := markerRE.FindStringSubmatch(lastLine(body))
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

// lastLine is body's last line that is not blank, without its CR; ""
// when it is longer than maxReadMarker.
func lastLine(body string) string {
	body = strings.TrimRight(body, " \t\r\n")
	line := body[strings.LastIndexByte(body, '\n')+1:]
	if len(line) > maxReadMarker {
		return ""
	}
	return line
}

// maxReadMarker is the longest marker line Decode reads: more than
// MaxMarker, so that a marker written before the bound (GitLab and Gitea
// took longer ones) is still read, and its record kept.
const maxReadMarker = 1 << 20

// HasMarker reports whether body claims to be a dashboard, readable or not.
func HasMarker(body string) bool { return strings.Contains(body, markerStart) }
