package chartrepo

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// mediaType names the form an index is kept in the cache: what the Client
// keeps of it, not the repository's bytes. A new form gets a new name, so
// that another version of imagebot reads a miss, not a wrong answer.
const mediaType = "application/vnd.imagebot.chart-index.v2+json"

// stored is an index as the cache keeps it: Only names the charts kept
// when not all were (Client.Expect).
type stored struct {
	Only   []string                   `json:"only,omitempty"`
	Listed int                        `json:"listed,omitempty"` // the charts the index lists
	Charts map[string][]storedVersion `json:"charts"`
}

type storedVersion struct {
	Version    string    `json:"v"`
	Created    time.Time `json:"c,omitzero"`
	Deprecated bool      `json:"d,omitempty"`
	AppVersion string    `json:"a,omitempty"`
	Digest     string    `json:"g,omitempty"`
	Home       string    `json:"h,omitempty"`
	Sources    []string  `json:"s,omitempty"`
	URLs       []string  `json:"u,omitempty"`
}

// held is an index the cache holds, with what it was stored as: a 304
// confirms it as it is (confirmed).
type held struct {
	doc *cache.Document
	obj cache.Object
	idx *index
}

// cached returns the stored index of indexURL, if the cache holds it
// whole and it kept every chart of only (nil: every chart); nil if not.
func (c *Client) cached(indexURL string, only map[string]bool) *held {
	if c.o.Cache == nil {
		return nil
	}
	doc, o, ok := c.o.Cache.Document(indexURL, mediaType)
	if !ok {
		return nil
	}
	var st stored
	if json.Unmarshal(o.Data, &st) != nil {
		return nil
	}
	x := &index{charts: make(map[string][]Version, len(st.Charts)), only: only, listed: max(st.Listed, len(st.Charts))}
	if st.Only != nil {
		kept := map[string]bool{}
		for _, ch := range st.Only {
			kept[ch] = true
		}
		for ch := range only {
			if !kept[ch] {
				return nil // a chart this run needs was not kept
			}
		}
		if only == nil {
			return nil
		}
	}
	for name, vs := range st.Charts {
		if !x.keeps(name) {
			continue
		}
		out := make([]Version, 0, len(vs))
		for _, s := range vs {
			v, err := semver.NewVersion(s.Version)
			if err != nil {
				return nil
			}
			out = append(out, Version{Version: v, Created: s.Created, Deprecated: s.Deprecated, AppVersion: s.AppVersion,
				Digest: s.Digest, Home: s.Home, Sources: s.Sources, URLs: s.URLs})
		}
		x.charts[name] = out
	}
	return &held{doc: doc, obj: o, idx: x}
}

// confirmed records that the repository answered 304 for st: what is
// stored stays as it is (not written again from the charts this run
// kept), confirmed now.
func (c *Client) confirmed(st *held) {
	d := *st.doc
	d.Checked = c.o.Cache.Now()
	c.o.Cache.PutDocument(d, st.obj)
}

// remember stores an index confirmed now. A cache that cannot write is
// no reason to fail a run: the next run fetches again.
func (c *Client) remember(indexURL, etag, lastModified string, x *index) {
	if c.o.Cache == nil {
		return
	}
	st := stored{Charts: make(map[string][]storedVersion, len(x.charts)), Listed: x.listed}
	if x.only != nil {
		st.Only = slices.Sorted(maps.Keys(x.only))
	}
	for name, vs := range x.charts {
		out := make([]storedVersion, len(vs))
		for i, v := range vs {
			out[i] = storedVersion{Version: v.Version.Original(), Created: v.Created, Deprecated: v.Deprecated, AppVersion: v.AppVersion,
				Digest: v.Digest, Home: v.Home, Sources: v.Sources, URLs: v.URLs}
		}
		st.Charts[name] = out
	}
	data, err := json.Marshal(st)
	if err != nil {
		return
	}
	d := cache.Document{URL: indexURL, ETag: etag, LastModified: lastModified, Checked: c.o.Cache.Now()}
	c.o.Cache.PutDocument(d, cache.Object{MediaType: mediaType, Data: data})
}
