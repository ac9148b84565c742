package gitops

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// packCache keeps the packs a repository's runs fetched, so that a rerun
// downloads only what is new, and nothing when origin's default branch and
// imagebot's branches have not moved (Options.GitCache).
//
// A repository's packs live in DIR/v1/<sha256 of its URL>/, whose file
// "origin" names the URL: a directory naming another, or none, is foreign
// and neither read nor written. Inside, one generation directory holds the
// pack files and, for each run that added some, a set-* file listing every
// pack its packs need (those it read and its own) and the tips it had,
// the haves of later fetches. Each file is written under a temporary name
// and renamed into place, never changed after: runs at once on the same
// cache add files side by side and read whole ones.
//
// Nothing in it is trusted. A run reads each pack through the same parser
// as a fetched one, which computes every object's hash from its content
// (SHA-1 with collision detection) and builds a fresh index, into the
// run's own clone; a corrupt pack fails that parse, and a generation where
// a set names a pack that is missing is not whole. Either way the run drops
// the generation, starts its clone over and fetches as if there were no
// cache. An object is found only under its true hash, so a pack can add
// objects, never change one, and every pack holds the whole of what it
// adds (go-git asks for no thin packs): a commit on disk is its history on
// disk, which is what lets a tip on disk go unfetched.
//
// The packs a run adds hold what that run lacked, given the generation it
// read: they go into that same generation, or, when the run read none, a
// new one (theirs is whole on its own) that replaces the others. A
// generation over MaxBytes, or of more than maxCachedPacks packs, is
// dropped: the next run fetches the whole and starts a new one, which is
// how packs are merged. Removing the directory at any time is safe: a run
// reads its packs into its own clone at the start.
type packCache struct {
	dir      string // DIR/v1/<key>
	maxBytes int64
	log      *slog.Logger

	gen      string          // generation read, "" when none
	imported map[string]bool // pack files of the run's clone that came from gen
	tips     []plumbing.Hash // commits whose history the packs read hold
}

// maxCachedPacks bounds the packs of a generation: each run that fetched
// adds one, and reading many small packs costs more than one.
const maxCachedPacks = 32

// defaultGitCacheBytes bounds a repository's kept packs when
// Options.GitCacheMaxBytes is 0.
const defaultGitCacheBytes = 256 << 20

// openPackCache is the cache of rawURL's packs under root, nil when it
// cannot be used (foreign, unwritable): a run without one fetches it all.
func openPackCache(root, rawURL string, maxBytes int64, log *slog.Logger) *packCache {
	url := RedactURL(rawURL)
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(root, "v1", hex.EncodeToString(sum[:16]))
	if maxBytes <= 0 {
		maxBytes = defaultGitCacheBytes
	}
	c := &packCache{dir: dir, maxBytes: maxBytes, log: log}
	marker := filepath.Join(dir, "origin")
	got, err := os.ReadFile(marker)
	if errors.Is(err, fs.ErrNotExist) {
		// A run at the same time may make it too: the origin file read
		// next decides, whoever made it.
		if cerr := c.create(url); cerr != nil {
			err = cerr
		} else {
			got, err = os.ReadFile(marker)
		}
	}
	switch {
	case err != nil:
		log.Warn("git cache not used", "dir", dir, "err", err)
		return nil
	case string(got) != url+"\n":
		log.Warn("git cache not used: it names another repository", "dir", dir)
		return nil
	}
	return c
}

// create makes the repository's directory with its origin file, whole or
// not at all.
func (c *packCache) create(url string) error {
	if err := os.MkdirAll(filepath.Dir(c.dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(c.dir), ".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "origin"), []byte(url+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.dir); err != nil {
		if _, serr := os.Stat(c.dir); serr == nil {
			return nil // made by a run at the same time, or not ours
		}
		return err
	}
	return nil
}

// generations are the generation directories, newest last.
func (c *packCache) generations() []string {
	entries, _ := os.ReadDir(c.dir)
	var gens []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "gen-") {
			gens = append(gens, e.Name())
		}
	}
	slices.Sort(gens)
	return gens
}

// load parses the newest generation's packs into st and reads its tips.
// On an error st may hold part of them: the caller starts over without
// the cache, which has dropped the generation.
func (c *packCache) load(st storer.Storer, packDir string) error {
	gens := c.generations()
	if len(gens) == 0 {
		return nil
	}
	gen := gens[len(gens)-1]
	dir := filepath.Join(c.dir, gen)
	err := c.loadGeneration(st, dir)
	if err != nil {
		c.drop(gen)
		c.tips = nil
		return fmt.Errorf("git cache %s: %w", dir, err)
	}
	c.gen = gen
	c.imported = packNames(packDir)
	// The origin file's time says when the packs were last read: the
	// repositories read least recently are PruneGitCache's first to go.
	now := time.Now()
	_ = os.Chtimes(filepath.Join(c.dir, "origin"), now, now)
	return nil
}

// loadGeneration checks that every pack a saved set of packs needs is
// there (a generation with a file missing is not whole), then parses the
// packs into st.
func (c *packCache) loadGeneration(st storer.Storer, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pack") {
			have[e.Name()] = true
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "set-") {
			if err := c.readSet(filepath.Join(dir, e.Name()), have); err != nil {
				return err
			}
		}
	}
	for _, e := range entries {
		if have[e.Name()] {
			if err := loadPack(st, filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func loadPack(st storer.Storer, path string) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := packfile.UpdateObjectStorage(st, bufio.NewReader(f)); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// readSet reads what one run saved: the packs it needs ("pack NAME", its
// own and those it read) and the commits they reach ("tip HASH").
func (c *packCache) readSet(path string, have map[string]bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for l := range strings.Lines(string(b)) {
		kind, v, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch kind {
		case "pack":
			if !have[v] {
				return fmt.Errorf("%s needs %s, which is missing", filepath.Base(path), v)
			}
		case "tip":
			if plumbing.IsHash(v) {
				c.tips = append(c.tips, plumbing.NewHash(v))
			}
		}
	}
	return nil
}

// packNames are the pack files in a clone's objects/pack.
func packNames(packDir string) map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir(packDir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pack") {
			names[e.Name()] = true
		}
	}
	return names
}

// save adds the packs of packDir that did not come from the cache, with
// tips, the run's remote-tracking tips (one whose commit is not in the
// packs is no have for a later run, which checks). Failing to keep them costs the next run a
// download, nothing more: it is logged, not returned.
func (c *packCache) save(packDir string, tips []plumbing.Hash) {
	var added []string
	for n := range packNames(packDir) {
		if !c.imported[n] {
			added = append(added, n)
		}
	}
	if len(added) == 0 {
		return // a rerun that fetched nothing writes nothing
	}
	slices.Sort(added)
	gen := c.gen
	if gen == "" {
		// The packs hold every object of their tips: a generation of their
		// own, which replaces the others.
		var err error
		if gen, err = c.newGeneration(); err != nil {
			c.log.Warn("git cache not written", "err", err)
			return
		}
	}
	dir := filepath.Join(c.dir, gen)
	// The set's list comes first: packs that arrive without the rest of
	// their set (a run cut short, a file removed) fail the next load's
	// check instead of passing for whole.
	var set strings.Builder
	for _, n := range slices.Sorted(maps.Keys(c.imported)) {
		set.WriteString("pack " + n + "\n")
	}
	for _, n := range added {
		set.WriteString("pack " + n + "\n")
	}
	for _, h := range tips {
		set.WriteString("tip " + h.String() + "\n")
	}
	if err := c.place(dir, "set-"+strings.TrimSuffix(added[0], ".pack"), func(tmp *os.File) error {
		_, err := tmp.WriteString(set.String())
		return err
	}); err != nil {
		c.log.Warn("git cache not written", "err", err)
		return
	}
	for _, n := range added {
		// Into the generation read, if it is still there: a rename into a
		// dropped one fails, and packs that need it are never kept alone.
		if err := c.place(dir, n, func(tmp *os.File) error { return copyFile(tmp, filepath.Join(packDir, n)) }); err != nil {
			c.log.Warn("git cache not written", "err", err)
			return
		}
	}
	for _, g := range c.generations() {
		if g != gen && c.gen == "" {
			c.drop(g)
		}
	}
	if size, packs := genSize(dir); size > c.maxBytes || packs > maxCachedPacks {
		c.log.Debug("git cache over its bound: dropped, the next run starts it again", "bytes", size, "packs", packs)
		c.drop(gen)
	}
}

// newGeneration makes an empty generation directory, named to sort after
// every existing one.
func (c *packCache) newGeneration() (string, error) {
	gens := c.generations()
	n := 0
	if len(gens) > 0 {
		fmt.Sscanf(gens[len(gens)-1], "gen-%d", &n)
	}
	name := fmt.Sprintf("gen-%09d-%s", n+1, rand.Text()[:8])
	return name, os.Mkdir(filepath.Join(c.dir, name), 0o755)
}

// place writes a file under a temporary name in c.dir and renames it to
// dir/name: readers see it whole or not at all.
func (c *packCache) place(dir, name string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(c.dir, ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

func copyFile(dst *os.File, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = dst.ReadFrom(f)
	return err
}

// drop removes a generation: renamed away first, so that no run reads or
// adds to it half removed.
func (c *packCache) drop(gen string) {
	trash, err := os.MkdirTemp(c.dir, ".drop-")
	if err != nil {
		return
	}
	defer os.RemoveAll(trash)
	_ = os.Rename(filepath.Join(c.dir, gen), filepath.Join(trash, gen))
}

// genSize is the bytes and the number of packs of a generation.
func genSize(dir string) (size int64, packs int) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			size += info.Size()
		}
		if strings.HasSuffix(e.Name(), ".pack") {
			packs++
		}
	}
	return size, packs
}
