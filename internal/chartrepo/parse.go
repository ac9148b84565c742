package chartrepo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unique"

	"github.com/Masterminds/semver/v3"
)

// A real index.yaml holds tens of MiB (every version of every chart, with
// descriptions, maintainers and annotations we do not need). Decoding the
// whole document at once would build its YAML tree first: some ten times
// its size in memory. Instead the index is read line by line and cut into
// its entries' list items, the layout Helm (and ChartMuseum, Harbor,
// chart-releaser, which use Helm's code) writes:
//
//	apiVersion: v1
//	entries:
//	  nginx:
//	  - apiVersion: v2
//	    appVersion: 1.25.3
//	    created: "2024-01-02T03:04:05.000000006Z"
//	    ...
//	generated: "..."
//
// Items are decoded in small batches into the fields we keep, so memory
// is the result plus one batch, and time is linear in the index's size.
// Nothing is decoded that no caller needs (issue 25): a line's key is
// located without decoding its value (yamlkeys.go), and the lines of a
// top-level key other than apiVersion and entries, of a chart the index
// does not keep (Client.Expect), and of an item's field entry does not
// hold are dropped as they are read. What does not fit that layout is
// decoded whole at the smallest level that holds it, up to maxWholeBytes:
// a chart written in flow style (`nginx: [...]`) as that chart's block,
// an `entries:` written in flow style as that key. A JSON index (Helm
// accepts one, and writes one with `helm repo index --json`) is read as a
// stream of tokens, the entries of charts not kept skipped undecoded.

// entry is what we keep of an index entry.
type entry struct {
	Version    string   `yaml:"version" json:"version"`
	Created    string   `yaml:"created" json:"created"`
	Deprecated bool     `yaml:"deprecated" json:"deprecated"`
	AppVersion string   `yaml:"appVersion" json:"appVersion"`
	Digest     string   `yaml:"digest" json:"digest"`
	Home       string   `yaml:"home" json:"home"`
	Sources    []string `yaml:"sources" json:"sources"`
	URLs       []string `yaml:"urls" json:"urls"`
}

// rest is what is decoded of a top-level key other than a block-style
// entries: apiVersion, entries in flow style, a key not located.
type rest struct {
	APIVersion string              `yaml:"apiVersion"`
	Entries    map[string][]*entry `yaml:"entries"`
}

// ErrNotIndex is wrapped by the errors of a document that is not a Helm
// repository index.
var ErrNotIndex = errors.New("not a Helm repository index")

// parse reads an index from r.
func parse(r io.Reader, only map[string]bool) (*index, error) {
	return parseIn(context.Background(), r, only)
}

// parseIn is parse waiting at most for ctx to read a JSON index, one of
// which is read at a time (jsonSlot).
func parseIn(ctx context.Context, r io.Reader, only map[string]bool) (*index, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	if first == '{' {
		select {
		case jsonSlot <- struct{}{}:
			defer func() { <-jsonSlot }()
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		return parseJSON(br, only)
	}
	p := &yamlParser{idx: &index{charts: map[string][]Version{}, only: only}}
	if err := p.run(br); err != nil {
		return nil, err
	}
	return p.idx, nil
}

// jsonSlot lets one JSON index be parsed at a time in the process. Go's
// JSON decoder holds a value whole while it reads it (up to the cap, some
// 110 MiB of heap at worst, against under 60 MiB for any YAML index), and
// indexes are seldom JSON: Helm writes YAML unless told otherwise.
var jsonSlot = make(chan struct{}, 1)

// firstByte peeks at the first byte that is not white space or a BOM.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return 0, fmt.Errorf("%w: the document is empty", ErrNotIndex)
			}
			return 0, err
		}
		switch {
		case b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n':
			br.Discard(1)
		case bytes.HasPrefix(peek(br, 3), []byte("\xef\xbb\xbf")):
			br.Discard(3)
		default:
			return b[0], nil
		}
	}
}

func peek(br *bufio.Reader, n int) []byte {
	b, _ := br.Peek(n)
	return b
}

// maxVersions bounds the versions an index keeps, of the charts asked
// for: some 400 bytes each, whatever few bytes the index spends on one.
// The largest public repositories list some tens of thousands in all.
// (A variable for tests, which lower it.)
var maxVersions = 100_000

// list notes a chart the index lists, kept or not.
func (x *index) list(name string) {
	if !x.keeps(name) {
		x.listed++
		return
	}
	if _, ok := x.charts[name]; !ok {
		x.listed++
		x.charts[name] = nil
	}
}

// add keeps an entry of chart name, if Helm would: a nil entry or one
// whose version is not semver is skipped, as Helm's loadIndex skips it.
func (x *index) add(name string, e *entry) error {
	if e == nil || !x.keeps(name) {
		return nil
	}
	v, err := semver.NewVersion(e.Version)
	if err != nil {
		return nil
	}
	if x.kept++; x.kept > maxVersions {
		of := "the charts asked for"
		if x.only == nil {
			of = "its charts (every chart was asked for)"
		}
		return fmt.Errorf("%w: it lists over %d versions of %s, more than imagebot keeps", ErrNotIndex, maxVersions, of)
	}
	created, _ := time.Parse(time.RFC3339Nano, e.Created)
	x.list(name)
	x.charts[name] = append(x.charts[name], Version{
		Version: v, Created: created, Deprecated: e.Deprecated, AppVersion: e.AppVersion,
		Digest: e.Digest, Home: unique.Make(e.Home).Value(), Sources: x.shared(e.Sources), URLs: e.URLs,
	})
	return nil
}

// shared returns one copy of a chart's sources for all its versions,
// which nearly always repeat them: a big index keeps them once.
func (x *index) shared(sources []string) []string {
	if len(sources) == 0 {
		return nil
	}
	key := strings.Join(sources, "\x00")
	if s, ok := x.sources[key]; ok {
		return s
	}
	if x.sources == nil {
		x.sources = map[string][]string{}
	}
	x.sources[key] = sources
	return sources
}

// sort orders every chart's versions newest first, as Helm's SortEntries
// does (a stable sort: equal versions keep the index's order).
// Each list is then cut to its length: appending left up to twice that.
func (x *index) sort() {
	for name, vs := range x.charts {
		slices.SortStableFunc(vs, func(a, b Version) int { return b.Version.Compare(a.Version) })
		if cap(vs) > len(vs) {
			x.charts[name] = slices.Clone(vs)
		}
	}
}

// parseJSON reads a JSON index token by token: entries one at a time.
func parseJSON(r io.Reader, only map[string]bool) (*index, error) {
	x := &index{charts: map[string][]Version{}, only: only}
	d := json.NewDecoder(r)
	var api string
	err := walkObject(d, func(key string) error {
		switch key {
		case "apiVersion":
			return d.Decode(&api)
		case "entries":
			return walkObject(d, func(name string) error {
				x.list(name)
				return walkArray(d, func() error {
					if !x.keeps(name) {
						return skipJSON(d) // never decoded
					}
					var e *entry
					if err := d.Decode(&e); err != nil {
						return err
					}
					return x.add(name, e)
				})
			})
		}
		return skipJSON(d)
	})
	switch {
	case errors.Is(err, ErrNotIndex):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: JSON at byte %d: %v", ErrNotIndex, d.InputOffset(), err)
	}
	if api == "" {
		return nil, fmt.Errorf("%w: it has no apiVersion", ErrNotIndex)
	}
	x.sort()
	x.sources = nil
	return x, nil
}

// skipJSON consumes the value next in d without decoding it: an array
// or object element by element (each read, checked and dropped: never
// the whole value at once), anything else as it is.
func skipJSON(d *json.Decoder) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('[') && t != json.Delim('{') {
		return nil
	}
	for d.More() {
		if t == json.Delim('{') {
			if _, err := d.Token(); err != nil { // the key
				return err
			}
		}
		if err := d.Decode(&discard{}); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

// discard is a JSON value read and checked, then dropped: json.Decoder
// hands it the value's bytes without copying them.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// walkObject calls f for each key of the JSON object (or null) that is
// next in d; f must consume the key's value.
func walkObject(d *json.Decoder, f func(key string) error) error {
	t, err := d.Token()
	if err != nil || t == nil {
		return err
	}
	if t != json.Delim('{') {
		return fmt.Errorf("want an object, got %v", t)
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return err
		}
		if err := f(k.(string)); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

// walkArray calls f for each element of the JSON array (or null) next in d.
func walkArray(d *json.Decoder, f func() error) error {
	t, err := d.Token()
	if err != nil || t == nil {
		return err
	}
	if t != json.Delim('[') {
		return fmt.Errorf("want an array, got %v", t)
	}
	for d.More() {
		if err := f(); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}
