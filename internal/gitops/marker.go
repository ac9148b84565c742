package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

// marker is the machine-readable part of a PR body: what the PR proposes.
// The next run reads it back instead of keeping state of its own.
//
// It is written as version 2, which carries several images (a group, the
// pre-pull branch) and the kind of PR; version 1, one image per PR, is
// still read, so that the PRs of earlier releases are recognised and a
// rerun does not rewrite their bodies.
type marker struct {
	Kind   string       `json:"kind,omitempty"` // "", or a plan.Kind*, or kindGroup
	Group  string       `json:"group,omitempty"`
	Env    string       `json:"env,omitempty"` // a promotion's environment
	Branch string       `json:"branch"`
	Moves  []markedMove `json:"moves"`
}

type markedMove struct {
	Image  string `json:"image"`
	From   string `json:"from"`
	To     string `json:"to"`
	Digest string `json:"digest,omitempty"`
	// Locations ("file:line") let a rerun see that the body's table of
	// locations is stale, e.g. after main gained another reference.
	Locations []string `json:"locations,omitempty"`
	// LocationsDigest stands for Locations when listing them would make
	// the marker too long for a body (an image used in thousands of
	// places): a sha256 of them, which changes when they do.
	LocationsDigest string `json:"locationsDigest,omitempty"`
	// Evidence is what made the move due (a promotion's soak and
	// statuses, a pre-pull's lead), and Notice what else the PR says of
	// it (a newer version waiting): a change of either rewrites the body.
	Evidence []string `json:"evidence,omitempty"`
	Notice   string   `json:"notice,omitempty"`
}

// markerV1 is the marker of releases before groups: one image per PR.
type markerV1 struct {
	Image   string    `json:"image"`
	Branch  string    `json:"branch"`
	Updates []movedV1 `json:"updates"`
}

type movedV1 struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	Digest    string   `json:"digest,omitempty"`
	Locations []string `json:"locations,omitempty"`
}

// kindGroup marks the PR of a config group (plan updates carry it in
// Update.Group, not Update.Kind).
const kindGroup = "group"

const markerPrefix = "<!-- imagebot:v2 "

// markerStart begins every marker. Nothing else in a body holds it: text
// from a registry or the tree has its "<!--" broken up (body.go).
const markerStart = "<!-- imagebot:v"

// markerRE is the marker's line. The JSON in it never holds "<", ">" or a
// line break: encoding/json escapes them.
var markerRE = regexp.MustCompile(`^<!-- imagebot:(v[12]) (\{.*\}) -->$`)

// maxMarker is the longest marker that lists every location; a longer one
// gives their digest instead, so that the body stays within GitHub's limit.
const maxMarker = 16 << 10

func markerOf(g group) marker {
	m := marker{Kind: g.Kind, Group: g.Name, Env: g.Env, Branch: g.Branch}
	for _, u := range g.Updates {
		mv := markedMove{Image: u.Image, From: u.From, To: u.To, Digest: u.Digest, Evidence: u.Grounds}
		if !g.plain() {
			// A plain PR's notice is said in its body (writeNotes), but
			// changes no marker: its PRs read the same as before groups.
			mv.Notice = u.Notice
		}
		for _, l := range u.Locations {
			mv.Locations = append(mv.Locations, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		m.Moves = append(m.Moves, mv)
	}
	if b, _ := json.Marshal(m); len(b) > maxMarker {
		for i, mv := range m.Moves {
			sum := sha256.Sum256([]byte(strings.Join(mv.Locations, "\n")))
			m.Moves[i].Locations, m.Moves[i].LocationsDigest = nil, "sha256:"+hex.EncodeToString(sum[:])
		}
	}
	return m
}

// text is the marker as written into a body: version 1 when it says
// nothing that version cannot (one image stream's PR), so that the PRs of
// plain updates read as they always have; version 2 otherwise.
func (m marker) text() string {
	if imgs := m.images(); m.Kind == "" && len(imgs) == 1 && !slices.ContainsFunc(m.Moves, func(mv markedMove) bool { return len(mv.Evidence) > 0 || mv.LocationsDigest != "" }) {
		v1 := markerV1{Image: imgs[0], Branch: m.Branch}
		for _, mv := range m.Moves {
			v1.Updates = append(v1.Updates, movedV1{From: mv.From, To: mv.To, Digest: mv.Digest, Locations: mv.Locations})
		}
		b, _ := json.Marshal(v1)
		return "<!-- imagebot:v1 " + string(b) + " -->"
	}
	b, _ := json.Marshal(m)
	return markerPrefix + string(b) + " -->"
}

// parseMarker reads the marker of a PR body; ok is false for PRs that
// imagebot did not write. The marker is read only when the body holds
// exactly one, on a line of its own (people may write around it): a
// marker quoted anywhere else, in an image's label or a file's name, is
// never taken for the bot's memory, and a body holding two says nothing.
func parseMarker(body string) (marker, bool) {
	if strings.Count(body, markerStart) != 1 {
		return marker{}, false
	}
	i := strings.Index(body, markerStart)
	line := body[i:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if k := strings.LastIndexByte(body[:i], '\n'); strings.TrimSpace(body[k+1:i]) != "" {
		return marker{}, false
	}
	sub := markerRE.FindStringSubmatch(strings.TrimSpace(line))
	if sub == nil {
		return marker{}, false
	}
	if sub[1] == "v1" {
		var v1 markerV1
		if json.Unmarshal([]byte(sub[2]), &v1) != nil || v1.Image == "" {
			return marker{}, false
		}
		m := marker{Branch: v1.Branch}
		for _, u := range v1.Updates {
			m.Moves = append(m.Moves, markedMove{Image: v1.Image, From: u.From, To: u.To, Digest: u.Digest, Locations: u.Locations})
		}
		return m, true
	}
	var m marker
	if json.Unmarshal([]byte(sub[2]), &m) != nil || m.Branch == "" || len(m.Moves) == 0 {
		return marker{}, false
	}
	for _, mv := range m.Moves {
		if mv.Image == "" {
			return marker{}, false
		}
	}
	return m, true
}

// prMarker is the marker of an open or closed PR, if it has one that
// agrees with the branch the PR is on: a marker copied onto another
// branch's PR says nothing about that branch.
func prMarker(pr *Change) (marker, bool) {
	m, ok := parseMarker(pr.Body)
	if !ok || m.Branch != pr.Head {
		return marker{}, false
	}
	return m, true
}

// sameMarker reports whether body carries the marker this run would write
// (read in either version).
func sameMarker(body string, g group) bool {
	m, ok := parseMarker(body)
	want, _ := json.Marshal(markerOf(g))
	got, _ := json.Marshal(m)
	return ok && string(got) == string(want)
}

// proposes reports whether a PR with marker m proposed moving u's image to
// u's tag and digest: a closed one means a human declined exactly that.
func (m marker) proposes(u plan.Update) bool {
	for _, mv := range m.Moves {
		if mv.Image == u.Image && mv.To == u.To && mv.Digest == u.Digest {
			return true
		}
	}
	return false
}

// declinesLine reports whether m proposed a major move of u's image into
// the major line of u's target (1.9.0 -> 2.0.0 for u moving to 2.1.0): once
// closed, that major is declined, not only that version.
func (m marker) declinesLine(u plan.Update) bool {
	for _, mv := range m.Moves {
		if mv.Image == u.Image && policy.Type(mv.From, mv.To) == "major" && policy.Type(mv.To, u.To) != "major" && policy.Type(u.To, mv.To) != "major" {
			return true
		}
	}
	return false
}

// rollsBack reports whether m is a rollback PR that moved u's image away
// from u's target: once merged, that version counts as declined.
func (m marker) rollsBack(u plan.Update) bool {
	if m.Kind != plan.KindRollback {
		return false
	}
	for _, mv := range m.Moves {
		if mv.Image == u.Image && mv.From == u.To {
			return true
		}
	}
	return false
}

// images are the images the PR moves, in marker order, once each.
func (m marker) images() []string {
	var out []string
	for _, mv := range m.Moves {
		out = appendNew(out, mv.Image)
	}
	return out
}
