package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayering keeps the pipeline one-way: scan -> registry -> policy ->
// (gates) -> plan -> rewrite -> gitops, conducted by job, which serve and
// cmd/bot call. As go-containerregistry's cmd/crane/depcheck_test.go does,
// it checks every package a stage depends on, directly or through another
// package: a stage never reaches a later stage, nothing before gitops
// reaches git or GitHub, and nothing but the registry stage reaches the
// registry client or its retries.
func TestLayering(t *testing.T) {
	const mod = "github.com/imagebot/imagebot/"
	later := func(stages ...string) []string {
		var out []string
		for _, s := range stages {
			out = append(out, mod+"internal/"+s)
		}
		return out
	}
	// Anything that talks to git, GitHub or a registry.
	network := []string{"github.com/go-git/", "github.com/google/go-github/",
		"github.com/hashicorp/go-retryablehttp", "github.com/google/go-containerregistry/pkg/v1/remote"}
	// Every git host's client: only its driver (internal/gitops/forge/<host>)
	// may link it.
	hostSDKs := []string{"github.com/google/go-github/", "gitlab.com/gitlab-org/api/client-go", "code.gitea.io/sdk/", "github.com/bradleyfalzon/ghinstallation/"}
	tests := []struct {
		pkg string
		// deps may appear nowhere in the package's dependency graph.
		deps []string
		// direct may not be imported by the package itself (kyaml's
		// OpenAPI support drags net/http into every YAML reader, so it can
		// only be held off at the door).
		direct []string
	}{
		{"internal/config", network, []string{"net/http"}},
		{"internal/scan", append(later("registry", "policy", "plan", "rewrite", "gitops", "config"), network...), []string{"net/http", "os/exec"}},
		{"internal/policy", append(later("registry", "scan", "plan", "rewrite", "gitops", "config"), append(network, "net/http", "os/exec", "sigs.k8s.io/")...), nil},
		// The registry is below the gates and the signature check: it
		// says "not found" with fs.ErrNotExist and writes imagefacts, so
		// that sigstore and gRPC stay out of everything that uses it.
		{"internal/registry", append(later("scan", "policy", "plan", "rewrite", "gitops", "config", "gate", "signature"), "github.com/go-git/", "github.com/google/go-github/", "github.com/sigstore/"), nil},
		// The plan reaches the registry and signatures only through its
		// Inspector interface, implemented by gate/inspect.
		{"internal/plan", append(later("registry", "rewrite", "gitops", "config", "signature", "gate/inspect"), network...), []string{"net/http"}},
		// Gates are pure: facts and a spec in, a verdict out.
		{"internal/gate", append(later("registry", "scan", "policy", "plan", "rewrite", "gitops", "config", "signature", "gate/inspect"), append(network, "net/http", "os/exec", "github.com/sigstore/")...), nil},
		// The inspector uses the registry client through an interface and
		// the plan not at all.
		{"internal/gate/inspect", append(later("registry", "scan", "policy", "plan", "rewrite", "gitops", "config"), "github.com/go-git/", "github.com/google/go-github/", "github.com/google/go-containerregistry/pkg/v1/remote"), nil},
		{"internal/rewrite", append(later("registry", "gitops", "config"), network...), []string{"net/http", "os/exec"}},
		// Rollouts are decided from interfaces that gitops implements.
		{"internal/rollout", append(later("registry", "rewrite", "gitops"), network...), []string{"net/http", "os/exec"}},
		{"internal/prepull", append(later("registry", "policy", "plan", "rewrite", "gitops", "config", "rollout"), network...), []string{"net/http", "os/exec"}},
		// Git tags are listed beside the registry, below what decides.
		{"internal/gitsource", append(later("scan", "policy", "plan", "rewrite", "gitops", "config", "gate"), "github.com/google/go-github/", "github.com/google/go-containerregistry/pkg/v1/remote"), nil},
		// The guarded HTTP client under the chart and git lookups: no
		// git, no registry, nothing that decides.
		{"internal/fetch", append(later("scan", "policy", "plan", "rewrite", "gitops", "config", "gate", "chartrepo", "gitsource"), "github.com/go-git/", "github.com/google/go-github/", "github.com/google/go-containerregistry/"), nil},
		// How times are written, below config and the gates alike.
		{"internal/timefmt", network, []string{"net/http", "os/exec"}},
		// What a registry says about an image, shared by the registry
		// client and the gates without either importing the other.
		{"internal/imagefacts", network, []string{"net/http", "os/exec"}},
		// The hosts' room: the Forge interface, its types and errors,
		// below every driver and the lifecycle; no host's SDK, no git.
		{"internal/gitops/forge", append(hostSDKs, "github.com/go-git/", "github.com/google/go-containerregistry/"), nil},
		// The lifecycle and job open a host through forge.Open and read
		// its refusals as forge's errors: no host's SDK.
		{"internal/gitops", hostSDKs, nil},
		// Nor a driver: job reads origin with forge's helpers (ParseAzureRemote).
		{"internal/job", append(slices.Clone(hostSDKs), "github.com/imagebot/imagebot/internal/gitops/forge/"), nil},
		// A driver links its own host's client only, and no git.
		{"internal/gitops/forge/gitea", []string{"github.com/google/go-github/", "gitlab.com/gitlab-org/api/client-go", "github.com/go-git/"}, nil},
		{"internal/gitops/forge/gitlab", []string{"github.com/google/go-github/", "code.gitea.io/sdk/", "github.com/go-git/"}, nil},
		{"internal/gitops/forge/github", []string{"gitlab.com/gitlab-org/api/client-go", "code.gitea.io/sdk/", "github.com/go-git/"}, nil},
		{"internal/gitops/forge/bitbucket", append(hostSDKs, "github.com/go-git/"), nil},
		// Azure's links go-git's transport for the multi_ack workaround only.
		{"internal/gitops/forge/azure", hostSDKs, nil},
	}
	// onlyInternal lists, for a package, the only imagebot packages it may
	// depend on at all. config validates policies with policy.New, the code
	// that applies them (issue 9), and writes durations as the gates quote
	// them (timefmt); it uses nothing else of imagebot. timefmt is a leaf.
	onlyInternal := map[string][]string{
		"internal/config":     {"internal/policy", "internal/timefmt"},
		"internal/timefmt":    {},
		"internal/imagefacts": {},
		// Drivers and the lifecycle import forge, never the other way; it
		// dials through localnet's guard and scrubs with secret.
		"internal/gitops/forge": {"internal/secret", "internal/localnet"},
		// A driver imports the room, never another driver or the lifecycle.
		"internal/gitops/forge/gitea":     {"internal/gitops/forge", "internal/secret", "internal/localnet"},
		"internal/gitops/forge/gitlab":    {"internal/gitops/forge", "internal/secret", "internal/localnet"},
		"internal/gitops/forge/github":    {"internal/gitops/forge", "internal/secret", "internal/localnet"},
		"internal/gitops/forge/bitbucket": {"internal/gitops/forge", "internal/secret", "internal/localnet"},
		"internal/gitops/forge/azure":     {"internal/gitops/forge", "internal/secret", "internal/localnet"},
	}
	for _, tc := range tests {
		t.Run(tc.pkg, func(t *testing.T) {
			// importer maps each dependency to one package that imports
			// it, so that a failure names the path that drags it in.
			importer := map[string]string{}
			var self []string
			for _, p := range moduleGraph(t).deps(mod + tc.pkg) {
				if p.ImportPath == mod+tc.pkg {
					self = p.Imports
				}
				for _, imp := range p.Imports {
					if _, ok := importer[imp]; !ok {
						importer[imp] = p.ImportPath
					}
				}
			}
			if self == nil {
				t.Fatalf("go list did not report %s itself", tc.pkg)
			}
			for dep := range importer {
				for _, bad := range tc.deps {
					if strings.HasPrefix(dep, bad) {
						t.Errorf("%s depends on %s (through %s)", tc.pkg, dep, chain(importer, dep, mod+tc.pkg))
					}
				}
				allowed, only := onlyInternal[tc.pkg]
				if own, ok := strings.CutPrefix(dep, mod); ok && only && own != tc.pkg && !slices.Contains(allowed, own) {
					t.Errorf("%s depends on %s (through %s); of imagebot it may only use %s", tc.pkg, dep, chain(importer, dep, mod+tc.pkg), strings.Join(allowed, ", "))
				}
			}
			for _, imp := range self {
				if slices.Contains(tc.direct, imp) {
					t.Errorf("%s imports %s itself", tc.pkg, imp)
				}
			}
		})
	}
}

// TestJobLayering: internal/job conducts the pipeline and may use every
// stage; nothing below it imports it, only serve (which runs job.Run on
// each repository) and cmd/bot. cmd/bot holds flags, words (help texts),
// the environment (environ), output formats (plan, run, cost, GitHub
// Actions annotations, step summary and outputs, log groups), progress
// rendering and exit statuses: it reaches the stages through job, never
// by importing them, and never builds a plan or opens a git session
// itself.
func TestJobLayering(t *testing.T) {
	const mod = "github.com/imagebot/imagebot/"
	g := moduleGraph(t)
	for pkg := range g {
		own, ok := strings.CutPrefix(pkg, mod)
		if !ok || !strings.HasPrefix(own, "internal/") || own == "internal/job" || own == "internal/serve" || strings.HasPrefix(own, "internal/job/") {
			continue
		}
		if slices.ContainsFunc(g.deps(pkg), func(p *listedPackage) bool { return p.ImportPath == mod+"internal/job" }) {
			t.Errorf("%s depends on internal/job, which is above it (only serve and cmd/bot call the job)", own)
		}
	}

	// The stages cmd/bot may not import: job conducts them.
	stages := []string{"scan", "policy", "rewrite", "rollout", "prepull", "gate", "gate/inspect"}
	// Nor a git host's SDK or driver: the drivers are linked through
	// forge/hosts, and job decides and opens the host.
	hostClients := []string{"github.com/google/go-github/", "gitlab.com/gitlab-org/api/client-go", "code.gitea.io/sdk/",
		"github.com/bradleyfalzon/ghinstallation/", mod + "internal/gitops/forge/github", mod + "internal/gitops/forge/gitlab", mod + "internal/gitops/forge/gitea",
		mod + "internal/gitops/forge/azure", mod + "internal/gitops/forge/bitbucket"}
	for _, imp := range g[mod+"cmd/bot"].Imports {
		if own, ok := strings.CutPrefix(imp, mod+"internal/"); ok && slices.Contains(stages, own) {
			t.Errorf("cmd/bot imports internal/%s: call internal/job instead", own)
		}
		for _, c := range hostClients {
			if strings.HasPrefix(imp, c) {
				t.Errorf("cmd/bot imports %s: a host is job's to choose and open (forge.Choose, forge.Open)", imp)
			}
		}
	}
	// Nor the calls that conduct the pipeline from the packages it does
	// import for their types.
	conducting := map[string][]string{"plan": {"Build"}, "gitops": {"Open", "Preview"}, "registry": {"NewClient"}, "adopt": {"Init", "FromFlux", "FromRenovate"}}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(conducting[x.Name], sel.Sel.Name) {
				t.Errorf("%s: cmd/bot calls %s.%s: call internal/job instead", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
	}
}

// chain spells the import path from root to dep, as far as importer knows.
func chain(importer map[string]string, dep, root string) string {
	path := []string{dep}
	for cur := dep; cur != root && len(path) < 20; {
		next, ok := importer[cur]
		if !ok {
			break
		}
		path = append(path, next)
		cur = next
	}
	slices.Reverse(path)
	return strings.Join(path, " -> ")
}

// TestNoDoublesInTheProduct: the release binary carries no test double, no
// test key and no test server, as net/http/httptest and testing/fstest stay
// out of programs. The doubles live in internal/testing/ and fixtures/,
// which only tests and cmd/demo (the demo's own binary) may import; no
// product package reaches them, nor httptest or net/http/cgi.
func TestNoDoublesInTheProduct(t *testing.T) {
	const mod = "github.com/imagebot/imagebot/"
	g := moduleGraph(t)
	forbidden := []string{mod + "internal/testing/", mod + "fixtures", "net/http/httptest", "net/http/cgi"}
	for _, lp := range g.deps(mod + "cmd/bot") {
		p := lp.ImportPath
		for _, f := range forbidden {
			if strings.HasPrefix(p, f) {
				t.Errorf("cmd/bot depends on %s: the release binary must carry no test double", p)
			}
		}
	}
	// Every product package (not a double, not the demo) stays off them too,
	// so that none can drag a double into cmd/bot later.
	for pkg, lp := range g {
		if !strings.HasPrefix(pkg, mod) || strings.HasPrefix(pkg, mod+"internal/testing/") || strings.HasPrefix(pkg, mod+"fixtures") || pkg == mod+"cmd/demo" {
			continue
		}
		for _, imp := range lp.Imports {
			for _, bad := range forbidden {
				if strings.HasPrefix(imp, bad) {
					t.Errorf("%s imports %s: doubles are for tests and cmd/demo only", pkg, imp)
				}
			}
		}
	}
}

// TestLayeringHostChoice: cmd/bot never decides, or re-decides, the git
// host: job.Options.AccessFor chooses it once (forge.Choose) and says all
// cmd/bot needs of it (token, variable, git user, server, the message
// without a token). No comparison or switch case of cmd/bot's own code
// may name a host's kind (gitops.GitLab, forge.Azure, job.AzureKind, …)
// or a host's name ("Gitea", "Azure DevOps", "bitbucket", …); the words
// of the output come from gitops.WordsOf, and --forge's values are a
// list, not a comparison.
func TestLayeringHostChoice(t *testing.T) {
	// The checker first catches what it must: a name compared, a kind
	// switched on, a flag's value compared with a kind.
	bad := `package main
func f(jo J, k Kind, v string) error {
	if jo.ForgeHost().Name == "Gitea" { return nil }
	switch k {
	case gitops.GitLab, forge.Azure:
	}
	if v != string(gitops.Bitbucket) { return nil }
	return nil
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", bad, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := hostBranches(fset, f); len(got) != 4 {
		t.Fatalf("the checker found %d of 4 branches on the host: %q", len(got), got)
	}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range hostBranches(fset, f) {
			t.Errorf("%s: cmd/bot branches on the git host; act on job.Options.AccessFor's job.Access instead", b)
		}
	}
}

// hostBranches lists the comparisons and switch cases in f that name a
// git host's kind or name.
func hostBranches(fset *token.FileSet, f *ast.File) []string {
	kinds := []string{"GitHub", "GitLab", "Gitea", "Bitbucket", "BitbucketServer", "Azure", "AzureKind"}
	names := []string{"GitHub", "GitLab", "Gitea", "Forgejo", "Gitea or Forgejo", "Bitbucket", "Bitbucket Cloud", "Bitbucket Data Center",
		"Azure", "Azure DevOps", "github", "gitlab", "gitea", "forgejo", "bitbucket", "bitbucket-server", "azure"}
	namesHost := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && slices.Contains([]string{"gitops", "forge", "job"}, id.Name) && slices.Contains(kinds, n.Sel.Name) {
					found = true
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING && slices.Contains(names, strings.Trim(n.Value, "\"`")) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (namesHost(n.X) || namesHost(n.Y)) {
				out = append(out, fset.Position(n.Pos()).String())
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if namesHost(e) {
					out = append(out, fset.Position(e.Pos()).String())
				}
			}
		}
		return true
	})
	return out
}
