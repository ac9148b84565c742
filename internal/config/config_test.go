package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// withDefaults is what Parse returns for c: defaults filled, File set.
func withDefaults(c Config) *Config {
	// The cases here leave the limits out: they take their defaults.
	c.PullRequests.MaxOpen = cmp.Or(c.PullRequests.MaxOpen, DefaultMaxOpen)
	c.PullRequests.PerHour = cmp.Or(c.PullRequests.PerHour, DefaultPerHour)
	c.setDefaults()
	c.File = "f.yaml"
	return &c
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want *Config
	}{
		{"empty", "", withDefaults(Config{})},
		{"comments only", "# nothing yet\n\n# really\n", withDefaults(Config{})},
		{"document marker only", "---\n", withDefaults(Config{})},
		{"byte order mark", "\ufeffschedule: '@daily'\n", withDefaults(Config{Schedule: "@daily"})},
		{"empty sections", "registries:\npolicies:\npaths:\ngit:\npullRequests:\n", withDefaults(Config{})},
		{
			"index.docker.io is docker.io",
			"registries:\n  Index.Docker.io: {mirror: 'https://m.example.com'}\n  ghcr.io: {username: u, passwordEnv: T}\n",
			withDefaults(Config{Registries: map[string]Registry{
				"docker.io": {Mirror: "https://m.example.com"},
				"ghcr.io":   {Username: "u", PasswordEnv: "T", PasswordEnvLine: 3},
			}}),
		},
		{
			"registry-1.docker.io is docker.io",
			"registries:\n  registry-1.docker.io: {username: u, passwordEnv: T}\n",
			withDefaults(Config{Registries: map[string]Registry{
				"docker.io": {Username: "u", PasswordEnv: "T", PasswordEnvLine: 2},
			}}),
		},
		{
			"policy keys",
			`policies:
  - match: "ghcr.io/acme/**"
    skip: false
    allow: patch
    ignore: ["1.10"]
    pattern: '^v(?P<version>.*)$'
    versioning: semver
    range: ~1.2
    pin: digest
    labels: [a]
    reviewers: [b]
    automerge: [patch, digest]
`,
			withDefaults(Config{Policies: []Policy{{
				Match: "ghcr.io/acme/**", Skip: ptr(false), Allow: ptr("patch"),
				Ignore: []string{"1.10"}, Pattern: ptr("^v(?P<version>.*)$"),
				Versioning: ptr("semver"), Range: ptr("~1.2"), Pin: ptr("digest"),
				Labels: []string{"a"}, Reviewers: []string{"b"},
				Automerge: []string{"patch", "digest"}, Line: 2,
			}}}),
		},
		{
			// An explicit empty list is kept apart from an absent one: it
			// clears what an earlier policy said (see TestFor).
			"empty list is not absent",
			"policies:\n- match: a.io/x\n  ignore: []\n- match: a.io/y\n  ignore:\n",
			withDefaults(Config{Policies: []Policy{
				{Match: "a.io/x", Ignore: []string{}, Line: 2},
				{Match: "a.io/y", Line: 4},
			}}),
		},
		{
			"merge keys: own keys win",
			"policies:\n- &p {match: a.io/x, allow: minor, labels: [l]}\n- <<: *p\n  allow: patch\n",
			withDefaults(Config{Policies: []Policy{
				{Match: "a.io/x", Allow: ptr("minor"), Labels: []string{"l"}, Line: 2},
				{Match: "a.io/x", Allow: ptr("patch"), Labels: []string{"l"}, Line: 3},
			}}),
		},
		{
			"git and pull requests",
			"git:\n  author: {name: Bot}\n  branchPrefix: deps/\npullRequests: {labels: [x], draft: true}\n",
			withDefaults(Config{
				Git:          Git{Author: Author{Name: "Bot"}, BranchPrefix: "deps/"},
				PullRequests: PullRequests{Labels: []string{"x"}, Draft: true},
			}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse("x.yaml", []byte("policies:\n  - match: a.io/b\n    alow: minor\n    skip: yes\n"))
	var errs *Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Parse error %T is not *Errors", err)
	}
	want := Errors{
		{File: "x.yaml", Line: 3, Col: 5, Msg: `unknown key "alow" (did you mean "allow"?)`},
		{File: "x.yaml", Line: 4, Col: 11, Msg: `"skip" must be a boolean, got string "yes" (use true or false)`},
	}
	if diff := gocmp.Diff(want, *errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	var one Error
	if !errors.As(err, &one) || one != want[0] {
		t.Errorf("errors.As(Error) = %v, want the first error", one)
	}
}

func TestDefault(t *testing.T) {
	want := &Config{
		Paths: []string{
			"**/*.yaml", "**/*.yml",
			"**/*.yaml.j2", "**/*.yml.j2", "**/*.yaml.tmpl", "**/*.yml.tmpl", "**/*.yaml.tpl", "**/*.yml.tpl",
			"**/Dockerfile", "**/Dockerfile.*", "**/*.Dockerfile", "**/Containerfile", "**/Containerfile.*", "**/*.Containerfile",
		},
		Git: Git{
			Author:        Author{Name: "imagebot", Email: "imagebot@users.noreply.github.com"},
			CommitMessage: "Update {{.Image}} to {{.To}}",
			BranchPrefix:  "imagebot/",
		},
		PullRequests:   PullRequests{MaxOpen: 10, PerHour: 2},
		DashboardTitle: "imagebot dashboard",
	}
	if diff := gocmp.Diff(want, Default()); diff != "" {
		t.Errorf("Default (-want +got):\n%s", diff)
	}
}

func TestFor(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`
pullRequests: {labels: [deps], reviewers: [alice]}
policies:
  - match: "**"
    automerge: [digest]
    minAge: 3d
    platforms: keep
  - match: docker.io/library/*
    allow: minor
    ignore: ["1.27.0"]
    labels: [hub, deps]
  - match: docker.io/library/nginx
    allow: patch
    ignore: []
    labels: [web]
    reviewers: [bob]
    minAge: 0s
    platforms: [linux/amd64]
    digestSettle: 6h
  - match: ghcr.io/acme/**
    versioning: semver
    range: <2
    signature: {identity: "https://github.com/acme/.+", issuer: "https://token.actions.githubusercontent.com"}
  - match: ghcr.io/acme/tool
    versioning: numeric
    pattern: '^b(?P<version>\d+)$'
    signature: {key: keys/tool.pub}
  - match: ghcr.io/acme/frozen
    skip: true
    pin: digest
    labels: []
    reviewers: []
    platforms: []
`))
	if err != nil {
		t.Fatal(err)
	}
	keyless := &Signature{Identity: "https://github.com/acme/.+", Issuer: "https://token.actions.githubusercontent.com"}
	base := func(r Resolved) Resolved {
		r.Allow = cmp.Or(r.Allow, "major")
		r.Automerge = []string{"digest"}
		r.MinAge = cmp.Or(r.MinAge, 72*time.Hour)
		if !r.Platforms.Keep && r.Platforms.List == nil {
			r.Platforms.Keep = true
		}
		return r
	}
	tests := []struct {
		image string
		want  Resolved
	}{
		{"quay.io/x/y", base(Resolved{Labels: []string{"deps"}, Reviewers: []string{"alice"}})},
		// Labels add to the defaults, without repeating "deps".
		{"docker.io/library/redis", base(Resolved{Allow: "minor", Ignore: []string{"1.27.0"}, Labels: []string{"deps", "hub"}, Reviewers: []string{"alice"}})},
		// A later empty ignore list replaces an earlier one; labels and
		// reviewers keep adding; a gate set to zero is off.
		{"docker.io/library/nginx", Resolved{
			Allow: "patch", Ignore: []string{}, Labels: []string{"deps", "hub", "web"}, Reviewers: []string{"alice", "bob"},
			Automerge: []string{"digest"}, DigestSettle: 6 * time.Hour, Platforms: Platforms{List: []string{"linux/amd64"}},
		}},
		// `*` stays within a segment.
		{"docker.io/bitnami/redis", base(Resolved{Labels: []string{"deps"}, Reviewers: []string{"alice"}})},
		{"ghcr.io/acme/team/api", base(Resolved{Versioning: "semver", Range: "<2", Labels: []string{"deps"}, Reviewers: []string{"alice"}, Signature: keyless})},
		// Changing versioning drops the range written for semver; a later
		// signature replaces the earlier one whole (no identity left over).
		{"ghcr.io/acme/tool", base(Resolved{Versioning: "numeric", Pattern: `^b(?P<version>\d+)$`, Labels: []string{"deps"}, Reviewers: []string{"alice"}, Signature: &Signature{Key: "keys/tool.pub"}})},
		// An empty list clears labels and reviewers, defaults included, and
		// `platforms: []` turns the gate off.
		{"ghcr.io/acme/frozen", Resolved{
			Skip: true, Allow: "major", Versioning: "semver", Range: "<2", Pin: "digest", Labels: []string{}, Reviewers: []string{},
			Automerge: []string{"digest"}, MinAge: 72 * time.Hour, Platforms: Platforms{List: []string{}}, Signature: keyless,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.image, func(t *testing.T) {
			got := c.For(tc.image, "apps/web.yaml")
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("For(%q) (-want +got):\n%s", tc.image, diff)
			}
		})
	}
	// Resolved lists are copies: changing one leaves the config alone.
	r := c.For("docker.io/library/redis", "apps/web.yaml")
	r.Labels[0] = "changed"
	r.Platforms.Keep = false
	if got := c.For("docker.io/library/redis", "apps/web.yaml").Labels[0]; got != "deps" {
		t.Errorf("For shares its lists with the config: label is %q", got)
	}
	if c.PullRequests.Labels[0] != "deps" {
		t.Errorf("For changed pullRequests.labels: %q", c.PullRequests.Labels)
	}
	r = c.For("ghcr.io/acme/tool", "apps/web.yaml")
	r.Signature.Key = "changed"
	r.Platforms.List = append(r.Platforms.List, "x")
	if got := c.For("ghcr.io/acme/tool", "apps/web.yaml").Signature.Key; got != "keys/tool.pub" {
		t.Errorf("For shares its signature with the config: key is %q", got)
	}
	r = c.For("docker.io/library/nginx", "apps/web.yaml")
	r.Platforms.List[0] = "changed"
	if got := c.For("docker.io/library/nginx", "apps/web.yaml").Platforms.List[0]; got != "linux/amd64" {
		t.Errorf("For shares its platforms with the config: %q", got)
	}
}

func TestIncluded(t *testing.T) {
	c, err := Parse("f.yaml", []byte("exclude: [vendor/**, '**/templates/**']\n"))
	if err != nil {
		t.Fatal(err)
	}
	custom := &Config{Paths: []string{"apps/**/*.yaml"}}
	tests := []struct {
		c    *Config
		path string
		want bool
	}{
		{c, "deploy.yaml", true},
		{c, "apps/web/deployment.yml", true},
		{c, "./apps/web/deployment.yaml", true},
		{c, "apps/web/README.md", false},
		{c, "vendor/x/deploy.yaml", false},
		{c, "charts/web/templates/deploy.yaml", false},
		{c, ".git/config.yaml", false},
		{c, "sub/.git/x.yaml", false},
		{c, "../outside.yaml", false},
		{custom, "apps/web/deployment.yaml", true},
		{custom, "clusters/prod.yaml", false},
		{&Config{}, "x.yml", true}, // a Config built in code scans the default paths
	}
	for _, tc := range tests {
		if got := tc.c.Included(tc.path); got != tc.want {
			t.Errorf("Included(%q) with paths %q = %v, want %v", tc.path, tc.c.Paths, got, tc.want)
		}
	}
}

func TestMirrors(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`registries:
  index.docker.io: {mirror: "https://hub.example.com"}
  ghcr.io: {username: u}
  localhost:5000: {mirror: "http://cache:5000/v2-proxy"}
  Charts.Bitnami.com/bitnami/: {mirror: "https://artifactory.example.com/artifactory/api/helm/bitnami-remote", username: u}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"docker.io": "https://hub.example.com", "localhost:5000": "http://cache:5000/v2-proxy"}
	if diff := gocmp.Diff(want, c.Mirrors()); diff != "" {
		t.Errorf("Mirrors (-want +got):\n%s", diff)
	}
	// A key with a path maps chart repository URLs only; its host is
	// lowercased, its path kept as written, without the trailing slash.
	want["charts.bitnami.com/bitnami"] = "https://artifactory.example.com/artifactory/api/helm/bitnami-remote"
	if diff := gocmp.Diff(want, c.ChartMirrors()); diff != "" {
		t.Errorf("ChartMirrors (-want +got):\n%s", diff)
	}
}

func TestFindAndLoad(t *testing.T) {
	write := func(t *testing.T, dir, name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("no file is the default", func(t *testing.T) {
		c, err := Find(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(Default(), c); diff != "" {
			t.Errorf("Find (-want +got):\n%s", diff)
		}
	})
	t.Run(".yml", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".imagebot.yml", "schedule: '@daily'\n")
		c, err := Find(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c.Schedule != "@daily" || c.File != filepath.Join(dir, ".imagebot.yml") {
			t.Errorf("Find = schedule %q from %q", c.Schedule, c.File)
		}
	})
	t.Run("both names is an error", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".imagebot.yml", "")
		write(t, dir, ".imagebot.yaml", "")
		var errs *Errors
		if _, err := Find(dir); !errors.As(err, &errs) {
			t.Errorf("Find = %v, want *Errors", err)
		}
	})
	t.Run("errors name the file", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".imagebot.yaml", "skip: true\n")
		_, err := Find(dir)
		want := filepath.Join(dir, ".imagebot.yaml") + `:1:1: unknown key "skip"`
		if err == nil || err.Error() != want {
			t.Errorf("Find = %v, want %s", err, want)
		}
	})
	t.Run("Load of a missing file", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestMessage(t *testing.T) {
	data := MessageData{Image: "docker.io/library/nginx", From: "1.25.3", To: "1.25.4", Type: "patch"}
	tests := []struct {
		git  Git
		want string
	}{
		{Default().Git, "Update docker.io/library/nginx to 1.25.4"},
		{Git{}, "Update docker.io/library/nginx to 1.25.4"},
		{Git{CommitMessage: "chore(deps): {{.Type}} {{.Image}} {{.From}} -> {{.To}}"}, "chore(deps): patch docker.io/library/nginx 1.25.3 -> 1.25.4"},
	}
	for _, tc := range tests {
		got, err := tc.git.Message(data)
		if err != nil || got != tc.want {
			t.Errorf("Message(%q) = %q, %v; want %q", tc.git.CommitMessage, got, err, tc.want)
		}
	}
}

// TestParseHostile checks that files built to make the walk blow up end in
// an error, quickly.
func TestParseHostile(t *testing.T) {
	// Types bound the depth, but a list of aliases to a policy with a long
	// list still multiplies: 2000 x 1000 values from 11 kB.
	aliasBomb := "labels: &l [" + strings.Repeat("x, ", 999) + "x]\np: &p {match: a.io/x, labels: *l}\n" +
		"policies: [" + strings.Repeat("*p, ", 1999) + "*p]\n"
	// Each level merges the one below twice: 2^40 pairs.
	mergeBomb := "x0: &m0 {match: a.io/x}\n"
	for i := 1; i < 40; i++ {
		mergeBomb += fmt.Sprintf("x%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i-1, i-1)
	}
	tests := []struct{ name, yaml, want string }{
		{"self merge", "policies: [&a {<<: *a, match: a.io/x}]\n", `"<<" merges a mapping into itself`},
		{"alias bomb", aliasBomb, "too many values"},
		{"merge bomb", mergeBomb + "policies:\n- <<: *m39\n", "too many values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %.500v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestForPaths: a policy with paths applies only to references in the
// files they fit, and Scope tells the scopes of one image apart.
func TestForPaths(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`policies:
  - match: ghcr.io/acme/api
    versioning: semver
    range: ">=1"
  - match: ghcr.io/acme/api
    paths: ["envs/dev/**"]
    versioning: numeric
    pattern: '^main-(?P<version>\d+)-[0-9a-f]+$'
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.For("ghcr.io/acme/api", "envs/prod/api.yaml"); got.Versioning != "semver" || got.Range != ">=1" {
		t.Errorf("prod: %+v, want the semver policy alone", got)
	}
	if got := c.For("ghcr.io/acme/api", "envs/dev/api.yaml"); got.Versioning != "numeric" || got.Pattern == "" || got.Range != "" {
		t.Errorf("dev: %+v, want the numeric policy on top", got)
	}
	// A path that leaves the repository fits no paths.
	if got := c.For("ghcr.io/acme/api", "../envs/dev/api.yaml"); got.Versioning != "semver" {
		t.Errorf("outside: %+v, want the unscoped policy alone", got)
	}
	prod, prod2, dev := c.Scope("ghcr.io/acme/api", "envs/prod/a.yaml"), c.Scope("ghcr.io/acme/api", "base/a.yaml"), c.Scope("ghcr.io/acme/api", "./envs/dev/a.yaml")
	if prod != "" || prod2 != "" || dev == "" {
		t.Errorf("Scope: prod %q, base %q, dev %q; want \"\", \"\" and a non-empty scope", prod, prod2, dev)
	}
}

// TestForUpdate: policies with updateTypes speak only of the pull request
// of updates of those types; an update in several files automerges only
// when every file's policy allows it, and needs approval when one asks.
func TestForUpdate(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`approval: [major]
pullRequests: {labels: [deps]}
policies:
  - match: "**"
    automerge: [patch, digest]
  - match: "**"
    updateTypes: [minor, patch]
    labels: [small]
    automerge: [minor, patch]
  - match: ghcr.io/acme/**
    paths: ["envs/prod/**"]
    automerge: []
    approval: [all]
    reviewers: [ops]
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, image, typ string
		files            []string
		want             PullRequest
	}{
		{"major waits for approval", "docker.io/library/nginx", "major", []string{"a.yaml"}, PullRequest{Labels: []string{"deps"}, Reviewers: []string{}, Approval: true}},
		{"minor by the typed policy", "docker.io/library/nginx", "minor", []string{"a.yaml"}, PullRequest{Labels: []string{"deps", "small"}, Reviewers: []string{}, Automerge: true}},
		{"digest not typed", "docker.io/library/nginx", "digest", []string{"a.yaml"}, PullRequest{Labels: []string{"deps"}, Reviewers: []string{}, Automerge: true}},
		{"prod file holds it back", "ghcr.io/acme/api", "patch", []string{"envs/dev/a.yaml", "envs/prod/a.yaml"}, PullRequest{Labels: []string{"deps", "small"}, Reviewers: []string{"ops"}, Approval: true}},
		{"prod alone, typed policy is later", "ghcr.io/acme/api", "patch", []string{"envs/prod/a.yaml"}, PullRequest{Labels: []string{"deps", "small"}, Reviewers: []string{"ops"}, Approval: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.ForUpdate(tc.image, tc.files, tc.typ)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ForUpdate(%q, %q, %q) (-want +got):\n%s", tc.image, tc.files, tc.typ, diff)
			}
		})
	}
	// For leaves the typed policies out: they cannot steer the choice.
	if got := c.For("docker.io/library/nginx", "a.yaml"); slices.Contains(got.Labels, "small") {
		t.Errorf("For took a policy with updateTypes: %+v", got)
	}
}

func TestDashboardKeys(t *testing.T) {
	c := Default()
	if !c.DashboardOn() || !c.OnboardingOn() || c.DashboardTitle != DefaultDashboardTitle || !c.MajorMinorSeparate() {
		t.Errorf("defaults: dashboard %v, onboarding %v, title %q, separateMajorMinor %v", c.DashboardOn(), c.OnboardingOn(), c.DashboardTitle, c.MajorMinorSeparate())
	}
	c, err := Parse("f.yaml", []byte("dashboard: false\nonboarding: false\ndashboardTitle: Updates\nseparateMajorMinor: false\npullRequests: {maxOpen: 5, perRun: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.DashboardOn() || c.OnboardingOn() || c.DashboardTitle != "Updates" || c.MajorMinorSeparate() {
		t.Errorf("set: dashboard %v, onboarding %v, title %q, separateMajorMinor %v", c.DashboardOn(), c.OnboardingOn(), c.DashboardTitle, c.MajorMinorSeparate())
	}
	if want := (PullRequests{MaxOpen: 5, PerHour: DefaultPerHour, PerRun: 2}); !reflect.DeepEqual(c.PullRequests, want) {
		t.Errorf("set: limits %+v, want %+v", c.PullRequests, want)
	}
}

// TestCalmDefaults: with no config, or a config that does not name them,
// at most 10 pull requests are open and 2 open an hour (issue 26: 70 pull
// requests in 8.5 s after onboarding); 0 is no limit, and stays 0.
func TestCalmDefaults(t *testing.T) {
	calm := PullRequests{MaxOpen: 10, PerHour: 2}
	for name, src := range map[string]string{
		"no file":       "",
		"other keys":    "paths: ['**/*.yaml']\n",
		"empty section": "pullRequests:\n",
		"labels only":   "pullRequests: {labels: [deps]}\n",
	} {
		c, err := Parse("f.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got := c.PullRequests
		got.Labels = nil
		if !reflect.DeepEqual(got, calm) {
			t.Errorf("%s: limits %+v, want %+v", name, got, calm)
		}
	}
	if got := Default().PullRequests; !reflect.DeepEqual(got, calm) {
		t.Errorf("Default: limits %+v, want %+v", got, calm)
	}
	c, err := Parse("f.yaml", []byte("pullRequests: {maxOpen: 0, perHour: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.PullRequests; got.MaxOpen != 0 || got.PerHour != 0 || got.PerRun != 0 {
		t.Errorf("0 must stay no limit: %+v", got)
	}
	if _, err := Parse("f.yaml", []byte("pullRequests: {perHour: -1}\n")); err == nil || !strings.Contains(err.Error(), `"perHour" must be 0 (no limit) or more`) {
		t.Errorf("perHour: -1: %v", err)
	}
}
