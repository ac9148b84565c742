package helmrepotest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"sigs.k8s.io/yaml"
)

// Chart is one version of a chart in the repository.
type Chart struct {
	Name        string
	Version     string
	AppVersion  string
	Description string
	Home        string
	Sources     []string
	Deprecated  bool
	Created     time.Time // when indexed; zero: the server's clock at New
	// NoDigest leaves the version's digest out of the index, as indexes
	// written by hand or by tools other than helm may.
	NoDigest bool
}

// metadata is Helm's chart.Metadata (pkg/chart/metadata.go) for the
// fields we write, with its JSON names: Helm marshals it with
// sigs.k8s.io/yaml, which goes through JSON, so keys come out sorted.
type metadata struct {
	APIVersion  string   `json:"apiVersion,omitempty"`
	AppVersion  string   `json:"appVersion,omitempty"`
	Deprecated  bool     `json:"deprecated,omitempty"`
	Description string   `json:"description,omitempty"`
	Home        string   `json:"home,omitempty"`
	Name        string   `json:"name,omitempty"`
	Sources     []string `json:"sources,omitempty"`
	Type        string   `json:"type,omitempty"`
	Version     string   `json:"version,omitempty"`
}

func (c Chart) metadata() metadata {
	return metadata{APIVersion: "v2", AppVersion: c.AppVersion, Deprecated: c.Deprecated, Description: c.Description,
		Home: c.Home, Name: c.Name, Sources: c.Sources, Type: "application", Version: c.Version}
}

// headerBytes is the gzip Extra field Helm writes (pkg/chartutil/save.go).
var headerBytes = []byte("+aHR0cHM6Ly95b3V0dS5iZS96OVV6MWljandyTQo=")

// Archive returns the chart's NAME-VERSION.tgz as chartutil.Save writes it
// (pkg/chartutil/save.go, writeTarContents): a gzip stream with Helm's
// Extra and Comment, holding NAME/Chart.yaml, NAME/values.yaml and
// NAME/templates/*, each a regular file of mode 0644.
func Archive(c Chart) []byte {
	chartYAML, err := yaml.Marshal(c.metadata())
	if err != nil {
		panic(err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{"Chart.yaml", chartYAML},
		{"values.yaml", []byte("image:\n  repository: nginx\n  tag: \"" + c.AppVersion + "\"\n")},
		{"templates/deployment.yaml", []byte(deployment)},
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Header.Extra = headerBytes
	zw.Header.Comment = "Helm"
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Name: c.Name + "/" + f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: c.Created}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		tw.Write(f.data)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// Digest is the archive's digest as an index writes it: the hex sha256
// of the file, without a prefix (pkg/provenance/sign.go, Digest).
func Digest(archive []byte) string {
	sum := sha256.Sum256(archive)
	return hex.EncodeToString(sum[:])
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`

// Config returns the chart's metadata as `helm push` writes it in an OCI
// manifest's config blob (application/vnd.cncf.helm.config.v1+json):
// chart.Metadata marshalled as JSON (pkg/registry/client.go, Push).
func Config(c Chart) []byte {
	b, err := json.Marshal(c.metadata())
	if err != nil {
		panic(err)
	}
	return b
}
