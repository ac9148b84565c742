package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/imagebot/imagebot/internal/scan"
)

// ErrLockOutOfSync means a Chart.lock's digest does not match its
// Chart.yaml as Helm computes it, before any change of ours: the lock is
// already stale, or a dependency names a repository alias (@name) that
// Helm resolves from the machine's repositories before hashing. Keeping
// such a lock "consistent" is not possible, so the chart is left alone.
//
//lint:ignore ST1005 it starts with the file's name
var ErrLockOutOfSync = errors.New("Chart.lock's digest does not match Chart.yaml as Helm computes it (out of sync already, or a repository alias); run helm dependency update once")

// LockOf names the lock file that goes with a chart's dependencies file
// (dir/Chart.yaml -> dir/Chart.lock, requirements.yaml ->
// requirements.lock), or "" for any other file.
func LockOf(file string) string {
	dir, base := path.Split(file)
	switch base {
	case "Chart.yaml":
		return dir + "Chart.lock"
	case "requirements.yaml":
		return dir + "requirements.lock"
	}
	return ""
}

// ChartLock returns lock (the chart's Chart.lock) changed to agree with
// edited, its Chart.yaml after dependency versions changed from chartYAML:
// each changed dependency's locked version and the lock's digest are
// written in place, and nothing else changes. The `generated:` time is
// kept: Helm never checks it, and a new time would be the one byte change
// not derived from the versions. `helm dependency build` accepts the
// result without `helm dependency update`.
func ChartLock(chartYAML, edited, lock []byte) ([]byte, error) {
	before, err := loadChart(chartYAML)
	if err != nil {
		return nil, err
	}
	after, err := loadChart(edited)
	if err != nil {
		return nil, err
	}
	var locked helmLock
	if err := yaml.Unmarshal(lock, &locked); err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	hash, err := lockHash(before, locked)
	if err != nil {
		return nil, err
	}
	spans, err := scan.ReadLock(lock)
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	edits, err := lockVersions(before, after, spans)
	if err != nil {
		return nil, err
	}
	out, err := Apply(lock, edits)
	if err != nil {
		return nil, err
	}
	// The digest is over the lock's dependencies as they are now.
	var relocked helmLock
	if err := yaml.Unmarshal(out, &relocked); err != nil {
		return nil, fmt.Errorf("lock does not read back: %w", err)
	}
	sum, err := hash(after.Dependencies, relocked.Dependencies)
	if err != nil {
		return nil, err
	}
	out, err = Apply(lock, append(edits, Edit{Span: spans.DigestField.Span, Text: sum}))
	if err != nil {
		return nil, err
	}
	var check helmLock
	if err := yaml.Unmarshal(out, &check); err != nil || check.Digest != sum {
		return nil, fmt.Errorf("lock does not read back with digest %s", sum)
	}
	return out, nil
}

// lockVersions is the edits that move each locked version whose
// Chart.yaml dependency changed. Helm locks dependencies in Chart.yaml's
// order (internal/resolver Resolve), so entry i locks dependency i.
func lockVersions(before, after helmChart, l scan.Lock) ([]Edit, error) {
	if len(before.Dependencies) != len(after.Dependencies) || len(l.Dependencies) != len(before.Dependencies) {
		//lint:ignore ST1005 it starts with the file's name
		return nil, fmt.Errorf("Chart.yaml has %d dependencies, the edited one %d, Chart.lock %d: %w",
			len(before.Dependencies), len(after.Dependencies), len(l.Dependencies), ErrLockOutOfSync)
	}
	var edits []Edit
	for i, b := range before.Dependencies {
		a, e := after.Dependencies[i], l.Dependencies[i]
		if b.Version == a.Version {
			continue
		}
		if e.Name != b.Name || e.Repository != b.Repository || e.Version != b.Version || !e.Field.OK {
			//lint:ignore ST1005 it starts with the file's name
			return nil, fmt.Errorf("Chart.lock entry %d is %s %s %s, not Chart.yaml's %s %s %s: %w",
				i+1, e.Name, scan.WithoutUserinfo(e.Repository), e.Version, b.Name, scan.WithoutUserinfo(b.Repository), b.Version, ErrLockOutOfSync)
		}
		ed, err := fieldEdit(e.Field, e.Version, a.Version)
		if err != nil {
			return nil, err
		}
		edits = append(edits, ed)
	}
	return edits, nil
}

// helmDependency has the fields, order and JSON names of Helm's
// chart.Dependency (pkg/chart/v2/dependency.go), because Helm's lock
// digest is a hash of its JSON encoding.
type helmDependency struct {
	Name         string   `json:"name"`
	Version      string   `json:"version,omitempty"`
	Repository   string   `json:"repository"`
	Condition    string   `json:"condition,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Enabled      bool     `json:"enabled,omitempty"`
	ImportValues []any    `json:"import-values,omitempty"`
	Alias        string   `json:"alias,omitempty"`
}

type helmChart struct {
	APIVersion   string            `json:"apiVersion"`
	Dependencies []*helmDependency `json:"dependencies"`
}

type helmLock struct {
	Digest       string            `json:"digest"`
	Dependencies []*helmDependency `json:"dependencies"`
}

// loadChart reads Chart.yaml as Helm's loader does: sigs.k8s.io/yaml into
// the metadata, then Metadata.Validate, which rewrites every white-space
// rune of a dependency's strings to a space and drops unprintable ones.
func loadChart(src []byte) (helmChart, error) {
	var c helmChart
	if err := yaml.Unmarshal(src, &c); err != nil {
		return c, fmt.Errorf("read Chart.yaml: %w", err)
	}
	for _, d := range c.Dependencies {
		if d == nil {
			return c, errors.New("read Chart.yaml: an empty dependency")
		}
		d.Name, d.Version, d.Repository, d.Condition = sanitize(d.Name), sanitize(d.Version), sanitize(d.Repository), sanitize(d.Condition)
		for i := range d.Tags {
			d.Tags[i] = sanitize(d.Tags[i])
		}
	}
	return c, nil
}

// sanitize is Helm's sanitizeString (pkg/chart/v2/metadata.go).
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
}

type hashFunc func(req, lock []*helmDependency) (string, error)

// lockHash returns the hash that produced the lock's digest: Helm 3's, or
// for an apiVersion v1 chart Helm 2's (as `helm dependency build` accepts
// both, pkg/downloader Manager.Build); ErrLockOutOfSync when neither does.
func lockHash(c helmChart, l helmLock) (hashFunc, error) {
	if sum, err := hashReq(c.Dependencies, l.Dependencies); err == nil && sum == l.Digest {
		return hashReq, nil
	}
	if c.APIVersion == "v1" {
		if sum, err := hashV2Req(c.Dependencies, nil); err == nil && sum == l.Digest {
			return hashV2Req, nil
		}
	}
	return nil, ErrLockOutOfSync
}

// hashReq is Helm's lock digest (internal/resolver HashReq): the SHA-256
// of the JSON array [Chart.yaml's dependencies, the lock's dependencies],
// written "sha256:HEX".
func hashReq(req, lock []*helmDependency) (string, error) {
	return digestJSON([2][]*helmDependency{req, lock})
}

// hashV2Req is Helm 2's (internal/resolver HashV2Req): the SHA-256 of
// {"dependencies": Chart.yaml's dependencies}; the lock takes no part.
func hashV2Req(req, _ []*helmDependency) (string, error) {
	return digestJSON(map[string][]*helmDependency{"dependencies": req})
}

// digestJSON encodes v as encoding/json does for Helm (HTML characters
// escaped, no trailing newline) and hashes it.
func digestJSON(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSpace(data))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
