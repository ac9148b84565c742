package prepull

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Entry is one image the DaemonSet pulls. Image is a normalized name
// ("docker.io/library/nginx"); Digest, when set, pins exactly the image the
// rollout will run.
type Entry struct {
	Image  string
	Tag    string
	Digest string
}

// Ref is the reference the pull container runs: image:tag[@digest].
func (e Entry) Ref() string {
	s := e.Image + ":" + e.Tag
	if e.Digest != "" {
		s += "@" + e.Digest
	}
	return s
}

// Spec is what the config says of the DaemonSet.
type Spec struct {
	Namespace    string
	NodeSelector map[string]string
	// Helper is the imagebot image whose static binary the pull containers
	// run: ghcr.io/imagebot/imagebot:vX.Y.Z.
	Helper string
}

// Names and images of the DaemonSet's parts.
const (
	Name      = "imagebot-prepull"
	PauseRef  = "registry.k8s.io/pause:3.10"
	pullName  = "pull-"
	helperDir = "/prepull"
	// helperUser runs every container: the imagebot image's non-root user,
	// so that the copied binary is its own and runs in any image.
	helperUser = 65532
)

// header opens the file, so that a person who finds it knows whose it is.
const header = `# Pre-pull DaemonSet, written by imagebot (prepull in .imagebot.yaml).
# Each init container named pull-* pulls one image that an open or coming
# rollout uses; imagebot adds and removes them in its pull requests. Edits
# to the containers are overwritten; other fields (tolerations,
# imagePullSecrets, priorityClassName) are kept.
`

// ErrNotOurs is returned for a file that is not imagebot's DaemonSet.
var ErrNotOurs = errors.New("not imagebot's pre-pull DaemonSet")

// Render returns the DaemonSet pulling entries (in a stable order), built
// on src when it holds one (nil: a new file), so that what a person added
// to it stays.
func Render(src []byte, spec Spec, entries []Entry) ([]byte, error) {
	doc, err := parse(src)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		if doc, err = yaml.Parse(header + "apiVersion: apps/v1\nkind: DaemonSet\n"); err != nil {
			return nil, err
		}
	}
	labels := map[string]string{"app.kubernetes.io/name": Name, "app.kubernetes.io/managed-by": "imagebot"}
	nodes := map[string]string{"kubernetes.io/os": "linux"}
	maps.Copy(nodes, spec.NodeSelector)
	set := []struct {
		path  []string
		value any
		keep  bool // only when absent: a person may tune it
	}{
		{[]string{"metadata", "name"}, Name, false},
		{[]string{"metadata", "namespace"}, spec.Namespace, false},
		{[]string{"metadata", "labels"}, labels, false},
		{[]string{"spec", "selector"}, map[string]any{"matchLabels": map[string]string{"app.kubernetes.io/name": Name}}, false},
		{[]string{"spec", "updateStrategy"}, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": "20%"}}, true},
		{[]string{"spec", "template", "metadata", "labels"}, labels, false},
		{[]string{"spec", "template", "spec", "nodeSelector"}, nodes, false},
		{[]string{"spec", "template", "spec", "automountServiceAccountToken"}, false, false},
		{[]string{"spec", "template", "spec", "terminationGracePeriodSeconds"}, 1, true},
		{[]string{"spec", "template", "spec", "securityContext"}, podSecurity(), false},
		{[]string{"spec", "template", "spec", "initContainers"}, initContainers(spec.Helper, entries), false},
		{[]string{"spec", "template", "spec", "containers"}, []container{pause()}, false},
		{[]string{"spec", "template", "spec", "volumes"}, []map[string]any{{"name": "prepull", "emptyDir": map[string]any{"sizeLimit": "128Mi"}}}, false},
	}
	for _, s := range set {
		if s.keep {
			if f, err := doc.Pipe(yaml.Lookup(s.path...)); err == nil && f != nil {
				continue
			}
		}
		if err := setPath(doc, s.path, s.value); err != nil {
			return nil, fmt.Errorf("prepull: set %s: %w", strings.Join(s.path, "."), err)
		}
	}
	out, err := doc.String()
	if err != nil {
		return nil, fmt.Errorf("prepull: %w", err)
	}
	return []byte(out), nil
}

// parse reads src as the DaemonSet, nil for an empty file.
func parse(src []byte) (*yaml.RNode, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return nil, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotOurs, err)
		}
		docs = append(docs, &n)
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%w: it holds %d documents, want one", ErrNotOurs, len(docs))
	}
	doc := yaml.NewRNode(docs[0])
	if doc.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: it holds no mapping", ErrNotOurs)
	}
	if doc.GetKind() != "DaemonSet" || doc.GetName() != Name {
		return nil, fmt.Errorf("%w: it holds %s %q, want DaemonSet %q", ErrNotOurs, doc.GetKind(), doc.GetName(), Name)
	}
	return doc, nil
}

// setPath replaces the field at path with value, creating the maps on the
// way.
func setPath(doc *yaml.RNode, path []string, value any) error {
	b, err := yaml.Marshal(value)
	if err != nil {
		return err
	}
	v, err := yaml.Parse(string(b))
	if err != nil {
		return err
	}
	parent, err := doc.Pipe(yaml.LookupCreate(yaml.MappingNode, path[:len(path)-1]...))
	if err != nil {
		return err
	}
	return parent.PipeE(yaml.SetField(path[len(path)-1], v))
}

// Entries reads the images a DaemonSet file pulls, in file order; nil for
// an empty file.
func Entries(src []byte) ([]Entry, error) {
	doc, err := parse(src)
	if doc == nil || err != nil {
		return nil, err
	}
	list, err := doc.Pipe(yaml.Lookup("spec", "template", "spec", "initContainers"))
	if err != nil || list == nil {
		return nil, err
	}
	items, err := list.Elements()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, c := range items {
		n, _ := c.GetString("name")
		img, _ := c.GetString("image")
		if !strings.HasPrefix(n, pullName) || img == "" {
			continue
		}
		out = append(out, parseRef(img))
	}
	return out, nil
}

// parseRef splits image:tag@digest as Entry.Ref writes it.
func parseRef(s string) Entry {
	var e Entry
	s, e.Digest, _ = strings.Cut(s, "@")
	slash := strings.LastIndex(s, "/")
	if i := strings.LastIndex(s, ":"); i > slash {
		s, e.Tag = s[:i], s[i+1:]
	}
	e.Image = s
	return e
}

// container is the part of a Kubernetes container imagebot writes.
type container struct {
	Name            string         `yaml:"name"`
	Image           string         `yaml:"image"`
	ImagePullPolicy string         `yaml:"imagePullPolicy"`
	Command         []string       `yaml:"command,omitempty"`
	Resources       map[string]any `yaml:"resources"`
	SecurityContext map[string]any `yaml:"securityContext"`
	VolumeMounts    []mount        `yaml:"volumeMounts,omitempty"`
}

type mount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

func podSecurity() map[string]any {
	return map[string]any{
		"runAsNonRoot": true, "runAsUser": helperUser, "runAsGroup": helperUser,
		"seccompProfile": map[string]any{"type": "RuntimeDefault"},
	}
}

// restricted is what Pod Security's "restricted" level asks of a container.
func restricted() map[string]any {
	return map[string]any{
		"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
		"capabilities": map[string]any{"drop": []string{"ALL"}},
	}
}

func small() map[string]any {
	return map[string]any{
		"requests": map[string]any{"cpu": "1m", "memory": "8Mi"},
		"limits":   map[string]any{"memory": "64Mi"},
	}
}

// initContainers are the helper that copies the static binary, then one
// container per entry that runs it and exits: pulling is all it is for.
func initContainers(helper string, entries []Entry) []container {
	out := []container{{
		Name: "helper", Image: helper, ImagePullPolicy: "IfNotPresent",
		Command:   []string{"/imagebot", "prepull-helper", helperDir + "/imagebot"},
		Resources: small(), SecurityContext: restricted(),
		VolumeMounts: []mount{{Name: "prepull", MountPath: helperDir}},
	}}
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b Entry) int { return strings.Compare(a.Ref(), b.Ref()) })
	sorted = slices.CompactFunc(sorted, func(a, b Entry) bool { return a.Ref() == b.Ref() })
	for _, e := range sorted {
		out = append(out, container{
			Name: containerName(e), Image: e.Ref(), ImagePullPolicy: "IfNotPresent",
			Command:   []string{helperDir + "/imagebot", "version"},
			Resources: small(), SecurityContext: restricted(),
			VolumeMounts: []mount{{Name: "prepull", MountPath: helperDir, ReadOnly: true}},
		})
	}
	return out
}

func pause() container {
	return container{Name: "pause", Image: PauseRef, ImagePullPolicy: "IfNotPresent", Resources: small(), SecurityContext: restricted()}
}

// containerName is a DNS label (at most 63) naming the image and tag, with
// a hash of the whole reference that keeps two entries apart.
func containerName(e Entry) string {
	sum := sha256.Sum256([]byte(e.Ref()))
	base := e.Image[strings.LastIndex(e.Image, "/")+1:] + "-" + e.Tag
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteRune('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	const room = 63 - len(pullName) - 1 - 8
	if len(name) > room {
		name = strings.TrimRight(name[:room], "-")
	}
	return pullName + name + "-" + hex.EncodeToString(sum[:4])
}
