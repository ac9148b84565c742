package helmrepotest

import (
	"slices"

	"github.com/Masterminds/semver/v3"
	"time"

	"sigs.k8s.io/yaml"
)

// indexFile is Helm's repo.IndexFile (pkg/repo/index.go) and entry its
// ChartVersion: the metadata inline, then urls, created and digest.
type indexFile struct {
	APIVersion string             `json:"apiVersion"`
	Entries    map[string][]entry `json:"entries"`
	Generated  time.Time          `json:"generated"`
}

type entry struct {
	metadata           // inline, as Helm embeds *chart.Metadata
	URLs     []string  `json:"urls"`
	Created  time.Time `json:"created,omitempty"`
	Digest   string    `json:"digest,omitempty"`
}

// Index returns the index.yaml `helm repo index --url baseURL` writes for
// the charts (IndexDirectory, MustAdd, SortEntries, WriteFile): entries by
// name, newest version first, each with its archive's URL and digest.
// The archive of each chart is what Archive returns.
func Index(baseURL string, charts []Chart, generated time.Time) []byte {
	f := indexFile{APIVersion: "v1", Entries: map[string][]entry{}, Generated: generated}
	for _, c := range charts {
		e := entry{
			metadata: c.metadata(),
			URLs:     []string{baseURL + "/" + c.Name + "-" + c.Version + ".tgz"},
			Created:  c.Created,
		}
		if !c.NoDigest {
			e.Digest = Digest(Archive(c))
		}
		f.Entries[c.Name] = append(f.Entries[c.Name], e)
	}
	for _, es := range f.Entries {
		slices.SortStableFunc(es, func(a, b entry) int {
			return semver.MustParse(b.Version).Compare(semver.MustParse(a.Version))
		})
	}
	b, err := yaml.Marshal(f)
	if err != nil {
		panic(err)
	}
	return b
}
