package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FileNames are the names Find looks for at the repository root.
var FileNames = []string{".imagebot.yaml", ".imagebot.yml"}

// MaxSize bounds the config file imagebot reads: a config is a few
// kilobytes, and the walk must stay cheap even for a hostile pull request.
const MaxSize = maxSize

const maxSize = 1 << 20

// Load reads the config file at path, as given (relative to the working
// directory). A missing file is an error (wrapping fs.ErrNotExist); Find is
// for the optional case. A file with problems yields a *Errors naming each
// one.
func Load(path string) (*Config, error) {
	// The operator named this file, so it may be a link to anywhere (a
	// mounted ConfigMap is a chain of links); files that a repository
	// names are read through an os.Root instead.
	dir, name := filepath.Split(path)
	return read(os.DirFS(cmp.Or(dir, ".")), name, path, "")
}

// LoadIn reads the config file that --config names for the repository at
// repoDir. A relative name is resolved against the repository, not the
// working directory, and must stay inside it (symbolic links included): the
// same flag then means the same file for plan, run and serve, whatever
// directory they start in. An absolute name is read as it is.
func LoadIn(repoDir, file string) (*Config, error) {
	if filepath.IsAbs(file) {
		return Load(file)
	}
	name, err := inRepository(file, repoDir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return nil, fmt.Errorf("read config: repository %s: %w", repoDir, unwrapPath(err))
	}
	defer root.Close()
	return read(root.FS(), name, filepath.Join(repoDir, file), "")
}

// LoadFS reads the config file that --config names from fsys, the root of
// a repository such as the tree of the commit a run plans from. file is
// relative to that root, as LoadIn's, and must stay inside it; an
// absolute one is the caller's to Load. Errors and Config.File name the
// file by its path in the repository; where, when set, names fsys in the
// errors that are not about the file's content ("main@1a2b3c4d5e6f").
func LoadFS(fsys fs.FS, file, where string) (*Config, error) {
	name, err := inRepository(file, "")
	if err != nil {
		return nil, err
	}
	return read(fsys, name, name, where)
}

// inRepository is file, relative to a repository's root, as a path of
// io/fs; it is an error when it leaves the repository, which repo names
// when set.
func inRepository(file, repo string) (string, error) {
	name := filepath.ToSlash(filepath.Clean(file))
	if !fs.ValidPath(name) {
		if repo != "" {
			repo = " " + repo
		}
		return "", fmt.Errorf("config %s is outside the repository%s: give a path inside it, or an absolute path", file, repo)
	}
	return name, nil
}

// Find loads .imagebot.yaml (or .imagebot.yml) from repoDir, and returns
// Default() when there is neither. Both at once is an error: which one
// counts would be a guess. Errors name the files as repoDir/.imagebot.yaml.
func Find(repoDir string) (*Config, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return nil, fmt.Errorf("find config: repository %s: %w", repoDir, unwrapPath(err))
	}
	defer root.Close()
	return find(root.FS(), func(name string) string { return filepath.Join(repoDir, name) }, "")
}

// FindFS is Find over fsys, the root of a repository (such as the tree of
// the commit a run plans from); errors and Config.File name the files by
// their path in the repository. where, when set, names fsys in the errors
// that are not about a file's content ("main@1a2b3c4d5e6f"): whoever
// reads "both exist" with one of them deleted in a checkout learns that
// the commit still has both.
func FindFS(fsys fs.FS, where string) (*Config, error) {
	return find(fsys, func(name string) string { return name }, where)
}

func find(fsys fs.FS, display func(string) string, where string) (*Config, error) {
	var found []string
	for _, name := range FileNames {
		switch _, err := fs.Stat(fsys, name); {
		case err == nil:
			found = append(found, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("find config %s%s: %w", display(name), within(where), unwrapPath(err))
		}
	}
	switch len(found) {
	case 0:
		return Default(), nil
	case 1:
		return read(fsys, found[0], display(found[0]), where)
	}
	return nil, &Errors{{File: display(found[1]), Msg: fmt.Sprintf("both %s and %s exist%s; keep one", FileNames[0], FileNames[1], within(where))}}
}

// within is " in where", or nothing without a where.
func within(where string) string {
	if where == "" {
		return ""
	}
	return " in " + where
}

// read loads name from fsys, calling it display in errors and Config.File,
// and fsys where (when set) in errors that are not about its content.
// Only a regular file is opened: a FIFO or device named .imagebot.yaml
// would block or never end, and a link out of the repository is refused by
// the os.Root under fsys.
func read(fsys fs.FS, name, display, where string) (*Config, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read config %s%s: %w", display, within(where), unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, &Errors{{File: display, Msg: "is not a regular file"}}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read config %s%s: %w", display, within(where), unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config %s%s: %w", display, within(where), unwrapPath(err))
	}
	return Check(display, data)
}

// Check is what Load makes of a config file's bytes: the size limit, then
// Parse; file names it in errors. init checks what it writes with it, so
// that validate accepts whatever init writes.
func Check(file string, data []byte) (*Config, error) {
	if len(data) > maxSize {
		return nil, &Errors{{File: file, Msg: fmt.Sprintf("config is larger than %d bytes", maxSize)}}
	}
	return Parse(file, data)
}

// unwrapPath drops the *fs.PathError around err, whose path is the name
// inside fsys, in favour of the display name the caller adds; errors.Is
// still finds fs.ErrNotExist.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	// os.Root's own words (its error value is not exported) for a link
	// that leads out of the repository.
	if strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("links outside the repository, which imagebot does not read (%w)", err)
	}
	return err
}

// Parse reads a config from data; file names it in errors and becomes
// Config.File. An empty file, or one with only comments, is the default
// config.
func Parse(file string, data []byte) (*Config, error) {
	d := &decoder{file: file, bad: map[*yaml.Node]bool{}, merging: map[*yaml.Node]bool{}, budget: nodeBudget}
	c := &Config{}
	c.presetDefaults()
	if root := d.document(data); root != nil {
		d.decode(root, reflect.ValueOf(c).Elem(), "config")
	}
	if len(d.errs) > 0 {
		errs := d.errs.sorted()
		return nil, &errs
	}
	c.setDefaults()
	c.File = file
	return c, nil
}

// document parses data as one YAML document and returns its content, nil
// when the file is empty or only comments (or when it does not parse, with
// the error recorded).
func (d *decoder) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err != io.EOF {
			d.syntaxError(data, err)
		}
		return nil
	}
	// A second document would be ignored silently by a plain decode; a
	// config split by a stray `---` is a mistake worth naming.
	for {
		var more yaml.Node
		err := dec.Decode(&more)
		if err == io.EOF {
			break
		}
		if err != nil {
			d.syntaxError(data, err)
			return nil
		}
		if len(more.Content) > 0 && !isNull(more.Content[0]) {
			d.errorf(&more, "only one YAML document is allowed in a config file")
			break
		}
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil
	}
	return doc.Content[0]
}

// maxLineSearch bounds how far past yaml.v3's line syntaxError looks.
const maxLineSearch = 500

// syntaxError records a YAML parse error. yaml.v3 puts no position in its
// errors other than a line in the message, and that line is where the
// enclosing construct began (0-based for parser errors), or absent (an
// unknown anchor): "did not find expected key" names the `- match:` above
// the badly indented key. So the line reported is the first one, at or after
// yaml.v3's, whose prefix of the file fails with the same message.
func (d *decoder) syntaxError(data []byte, err error) {
	line, msg := splitYAMLError(err)
	e := Error{File: d.file, Line: line, Msg: "invalid YAML: " + msg}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for k := max(line-1, 1); k <= len(lines) && k < line+maxLineSearch; k++ {
		var n yaml.Node
		if err := yaml.Unmarshal(bytes.Join(lines[:k], nil), &n); err != nil {
			if _, m := splitYAMLError(err); m == msg {
				e.Line = k
				break
			}
		}
	}
	d.errs = append(d.errs, e)
}

var lineInMessage = regexp.MustCompile(`^(?:yaml: )?(?:line (\d+): )?`)

// splitYAMLError takes yaml.v3's "yaml: line 3: msg" apart.
func splitYAMLError(err error) (line int, msg string) {
	m := lineInMessage.FindStringSubmatch(err.Error())
	line, _ = strconv.Atoi(m[1])
	return line, strings.TrimPrefix(err.Error(), m[0])
}
