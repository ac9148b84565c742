package gitserver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// fixtureDate pins the initial commit's dates so the same files give the
// same commit SHA on every run, which keeps golden test output stable.
const fixtureDate = "2024-01-01T00:00:00Z"

// CreateRepo creates the bare repository owner/name with one initial commit
// holding files (slash-separated paths relative to the repository root) on
// branch, which also becomes HEAD, the repository's default branch. An empty
// branch means "main". It returns the bare repository's directory.
func (s *Server) CreateRepo(owner, name string, files map[string][]byte, branch string) (string, error) {
	if branch == "" {
		branch = "main"
	}
	if err := validName(owner); err != nil {
		return "", fmt.Errorf("create repo %s/%s: owner: %w", owner, name, err)
	}
	if err := validName(strings.TrimSuffix(name, ".git")); err != nil {
		return "", fmt.Errorf("create repo %s/%s: name: %w", owner, name, err)
	}
	dir := s.Dir(owner, name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("create repo %s/%s: already exists", owner, name)
	}
	if err := initialCommit(dir, files, branch); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("create repo %s/%s: %w", owner, name, err)
	}
	return dir, nil
}

func validName(n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\:`) {
		return fmt.Errorf("invalid name %q", n)
	}
	return nil
}

// initialCommit writes files into a scratch work tree and commits them into
// the bare repository dir, using a scratch index so the bare repository ends
// up exactly as `git init --bare` plus a push would leave it.
func initialCommit(dir string, files map[string][]byte, branch string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if _, err := gitOutput("", nil, "init", "--quiet", "--bare", "--initial-branch="+branch, dir); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "gitserver-work-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	tree := filepath.Join(work, "tree")
	for name, data := range files {
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("file %q: not a relative path inside the repository", name)
		}
		p := filepath.Join(tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return err
	}
	env := []string{
		"GIT_DIR=" + dir,
		"GIT_WORK_TREE=" + tree,
		"GIT_INDEX_FILE=" + filepath.Join(work, "index"),
		"GIT_AUTHOR_DATE=" + fixtureDate,
		"GIT_COMMITTER_DATE=" + fixtureDate,
	}
	if _, err := gitOutput("", env, "add", "--all", "--force", "."); err != nil {
		return err
	}
	_, err = gitOutput("", env, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "Initial commit")
	return err
}

// gitOutput runs the git CLI isolated from the user's configuration (no
// signing, hooks paths or default-branch settings leak into fixtures) and
// returns its stdout.
func gitOutput(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(isolatedGitEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		var exit *exec.ExitError
		if errors.As(err, &exit) && msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.String(), nil
}

// isolatedGitEnv is the environment minus anything that points git at
// another repository or configuration (GIT_DIR from a hook, a global
// init.defaultBranch, commit signing), plus a fixed identity.
func isolatedGitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=imagebot fixture",
		"GIT_AUTHOR_EMAIL=fixture@imagebot.invalid",
		"GIT_COMMITTER_NAME=imagebot fixture",
		"GIT_COMMITTER_EMAIL=fixture@imagebot.invalid",
	)
}
