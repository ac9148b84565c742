package config

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Cluster is one entry of `clusters:`: a cluster whose running pods drift
// compares with the references in Paths.
type Cluster struct {
	// Name is unique among clusters; reports and pull requests name the
	// cluster by it.
	Name string `yaml:"name"`
	// Context is the kubeconfig context; "" is the kubeconfig's current
	// context (or, under serve without a kubeconfig, the in-cluster
	// credentials).
	Context string `yaml:"context"`
	// Paths are doublestar globs of the files this cluster runs, relative
	// to the repository root.
	Paths []string `yaml:"paths"`
	// Namespaces to read, one list each; empty reads every namespace the
	// credentials may list, in one list.
	Namespaces []string `yaml:"namespaces"`
	// Selector is a label selector that narrows the pods read ("" for all).
	Selector string `yaml:"selector"`
}

// Drift steers how drift is fixed.
type Drift struct {
	// Restart are doublestar globs over normalized image names whose drift
	// is fixed by a pull request that sets the pod template annotation
	// imagebot.io/restartedAt (the pods roll and pull again) instead of one
	// that pins the tag to its digest.
	Restart []string `yaml:"restart"`
}

// Runs reports whether file (slash-separated, relative to the
// repository root) is one that cluster c runs.
func (c *Cluster) Runs(file string) bool {
	p, ok := repoPath(file)
	return ok && anyMatch(c.Paths, p)
}

// RestartFor reports whether drift of image (a normalized name) is fixed
// by a restart annotation rather than a digest pin.
// A nil Drift restarts nothing.
func (d *Drift) RestartFor(image string) bool { return d != nil && anyMatch(d.Restart, image) }

func (c *Cluster) check(d *decoder, m mapping) {
	d.checkName(m, "cluster", "production")
	if n := m.vals["paths"]; n == nil || isNull(n) || (n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		d.errorf(m.node, "cluster needs \"paths\": globs of the files it runs, such as [\"envs/prod/**\"]")
	}
	d.globList(m, "paths")
	seen := map[string]bool{}
	for i, n := range m.items(d, "namespaces") {
		switch {
		case n == nil:
		case len(n.Value) > 63 || !dnsLabel.MatchString(n.Value):
			d.errorf(n, "\"namespaces[%d]\" must be a namespace name (lowercase letters, digits and \"-\"), got %q", i, n.Value)
		case seen[n.Value]:
			d.errorf(n, "\"namespaces[%d]\" repeats %q", i, n.Value)
		}
		if n != nil {
			seen[n.Value] = true
		}
	}
}

func (dr *Drift) check(d *decoder, m mapping) {
	for i, n := range m.items(d, "restart") {
		if n != nil {
			if msg := imageGlobProblem(n.Value); msg != "" {
				d.errorf(n, "\"restart[%d]\" %s", i, msg)
			}
		}
	}
}

// checkClusters reports two clusters of one name.
func (c *Config) checkClusters(d *decoder, m mapping) {
	first := map[string]int{}
	for i, n := range m.items(d, "clusters") {
		if n == nil || c.Clusters[i].Name == "" {
			continue
		}
		if line, ok := first[c.Clusters[i].Name]; ok {
			d.errorf(n, "cluster %q is named twice (first at line %d)", c.Clusters[i].Name, line)
			continue
		}
		first[c.Clusters[i].Name] = n.Line
	}
}
