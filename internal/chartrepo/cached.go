package chartrepo

import (
	"encoding/json"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// mediaType names the form an index is kept in the cache: what the Client
// keeps of it, not the repository's bytes. A new form gets a new name, so
// that another version of imagebot reads a miss, not a wrong answer.
const mediaType = "application/vnd.imagebot.chart-index.v1+json"

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

// cached returns the stored document of indexURL and its index, if the
// cache holds both whole.
func (c *Client) cached(indexURL string) (*cache.Document, *index) {
	if c.o.cache == nil {
		return nil, nil
	}
	doc, o, ok := c.o.cache.Document(indexURL, mediaType)
	if !ok {
		return nil, nil
	}
	var stored map[string][]storedVersion
	if json.Unmarshal(o.Data, &stored) != nil {
		return nil, nil
	}
	x := &index{charts: make(map[string][]Version, len(stored))}
	for name, vs := range stored {
		out := make([]Version, 0, len(vs))
		for _, s := range vs {
			v, err := semver.NewVersion(s.Version)
			if err != nil {
				return nil, nil
			}
			out = append(out, Version{Version: v, Created: s.Created, Deprecated: s.Deprecated, AppVersion: s.AppVersion,
				Digest: s.Digest, Home: s.Home, Sources: s.Sources, URLs: s.URLs})
		}
		x.charts[name] = out
	}
	return doc, x
}

// remember stores an index confirmed now. A cache that cannot write is
// no reason to fail a run: the next run fetches again.
func (c *Client) remember(indexURL, etag, lastModified string, x *index) {
	if c.o.cache == nil {
		return
	}
	stored := make(map[string][]storedVersion, len(x.charts))
	for name, vs := range x.charts {
		out := make([]storedVersion, len(vs))
		for i, v := range vs {
			out[i] = storedVersion{Version: v.Version.Original(), Created: v.Created, Deprecated: v.Deprecated, AppVersion: v.AppVersion,
				Digest: v.Digest, Home: v.Home, Sources: v.Sources, URLs: v.URLs}
		}
		stored[name] = out
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return
	}
	d := cache.Document{URL: indexURL, ETag: etag, LastModified: lastModified, Checked: c.o.cache.Now()}
	c.o.cache.PutDocument(d, cache.Object{MediaType: mediaType, Data: data})
}
