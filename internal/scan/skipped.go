package scan

import "regexp"

// Skipped is a value found where an image reference belongs (under an
// `image:` key, in a kustomize `images:` entry or a Helm image map, or on a
// line with an `# imagebot:` marker) that is not a reference imagebot can
// use. It is left alone, and reported so that no reference vanishes without
// a word: the plan turns each one into a notice. Empty values and YAML nulls
// are not references and are never reported.
type Skipped struct {
	Location
	Kind Kind
	// Value is the value as written (for a Helm map or a kustomize entry,
	// its parts joined as name:tag@digest), cut to about 100 characters, so
	// that it can go into a message as it is.
	Value string
	// Reason is SkipVariable, SkipInvalid, SkipNoTag, SkipRenamed or
	// SkipFolded (or, for a chart version, a chart's reason); Detail says why,
	// for a person ("tag is 10000 characters long, more than 128").
	Reason string
	Detail string
	// Image is the normalized name when the value names a valid image
	// (SkipNoTag) and, for a chart version, the chart (Chart.String, or
	// its bare name when its repository is unknown), else "".
	Image string
}

// Reasons a value is skipped.
const (
	// SkipVariable: a placeholder another tool fills in (${IMAGE}, $(IMG),
	// {{ .Values.image }}, ${X:-nginx:1}, #{image}#). Its value is only known
	// at deploy time, so there is nothing here to update.
	SkipVariable = "variable"
	// SkipInvalid: not a valid image reference (bad characters, a tag longer
	// than 128 characters, a malformed digest, a value over several lines).
	SkipInvalid = "invalid"
	// SkipNoTag: a Helm image map with a repository and neither tag nor
	// digest (`tag: null`, `tag: ""`): the chart's default tag applies,
	// which only the chart knows.
	SkipNoTag = "no-tag"
	// SkipRenamed: a name that a kustomization building this file
	// rewrites with its `images:` (kubebuilder's `controller:latest`):
	// the entry is the reference, the name as written is never pulled.
	SkipRenamed = "renamed"
	// SkipFolded: an image in Argo CD helm.values written as a folded
	// (>, >-) or quoted string, whose bytes are not the values' lines:
	// found and named, never written (Value is the reference, Image its
	// name as written).
	SkipFolded = "folded"
)

// variableRE finds the placeholder syntaxes of the tools that render
// manifests before they are applied: shell and envsubst (${X}, $X, $(X)),
// Helm and Go templates ({{ }}), Azure DevOps and Octopus (#{X}).
var variableRE = regexp.MustCompile(`\$\{|\$\(|\$[A-Za-z_]|\{\{|#\{`)

func isVariable(s string) bool { return variableRE.MatchString(s) }

// skip records a value that is not a usable reference. why explains it; a
// value holding a placeholder is a variable whatever else is wrong with it.
func (w *walker) skip(at Location, kind Kind, value, why string) {
	s := Skipped{Location: at, Kind: kind, Value: clip(value), Reason: SkipInvalid, Detail: why}
	if isVariable(value) {
		s.Reason, s.Detail = SkipVariable, "a placeholder filled in by another tool; only literal references are updated"
	}
	w.skipped = append(w.skipped, s)
}
