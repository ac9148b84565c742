package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/utils/ioutil"
)

// defaultBranchPrefix is the branch prefix when the config sets none
// (config.DefaultBranchPrefix). Open fetches the branches under it with the
// default branch, before the config, which may name another, is read.
const defaultBranchPrefix = "imagebot/"

// A run's git traffic is one ref advertisement and at most one upload-pack
// (two when the config names another branch prefix). go-git's Fetch lists
// origin's refs anew each time: the default branch and imagebot's branches
// were two fetches, two advertisements and two packs even when nothing had
// moved. Here the
// advertisement is asked for once, in Open; the default branch and the
// branches under the prefix are taken from it together, and only the tips
// whose commits are not on disk are downloaded, in one pack. A push is
// leased against the tips this advertisement showed (or a later one's,
// after a refused push): never against a commit the run did not see.

// advertisement is origin's branches as one ref advertisement listed them.
type advertisement struct {
	heads map[string]plumbing.Hash // branch name -> tip
	caps  *capability.List
}

// under is the names of the advertised branches that start with prefix,
// sorted.
func (a *advertisement) under(prefix string) []string {
	var names []string
	for n := range a.heads {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// session is an upload-pack session with the current credentials. Over
// smart HTTP it holds no connection: an advertisement is one GET of
// info/refs, an upload-pack one POST, and the POST needs no GET before it.
func (r *remote) session(ctx context.Context) (transport.UploadPackSession, error) {
	auth, err := r.auth(ctx)
	if err != nil {
		return nil, err
	}
	ep, err := transport.NewEndpoint(r.url)
	if err != nil {
		return nil, err
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, err
	}
	return c.NewUploadPackSession(ep, auth)
}

// advertise lists origin's branches: one ref advertisement.
func (r *remote) advertise(ctx context.Context) (err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	s, err := r.session(ctx)
	if err != nil {
		return r.fetchErr(err)
	}
	defer ioutil.CheckClose(s, &err)
	ar, err := s.AdvertisedReferencesContext(ctx)
	if err != nil {
		return r.fetchErr(err)
	}
	heads := map[string]plumbing.Hash{}
	for name, h := range ar.References {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			heads[b] = h
		}
	}
	r.adv = &advertisement{heads: heads, caps: ar.Capabilities}
	r.covered = nil
	return nil
}

func (r *remote) fetchErr(err error) error {
	return fmt.Errorf("fetch %s: %w", RedactURL(r.url), r.creds.Scrub(err))
}

// fetchAdvertised makes the advertised tips of the branches named and of
// those under prefixes present on disk, downloading the missing ones in one
// upload-pack, and sets their remote-tracking refs to them. The tracking
// refs under prefixes that origin no longer has are removed.
func (r *remote) fetchAdvertised(ctx context.Context, names []string, prefixes ...string) error {
	for _, p := range prefixes {
		names = append(names, r.adv.under(p)...)
	}
	var wants []plumbing.Hash
	for _, n := range names {
		h, ok := r.adv.heads[n]
		if !ok {
			return r.fetchErr(fmt.Errorf("origin has no branch %s", n))
		}
		if !r.has(h) && !slices.Contains(wants, h) {
			wants = append(wants, h)
		}
	}
	if len(wants) > 0 {
		if err := r.uploadPack(ctx, wants); err != nil {
			return r.fetchErr(err)
		}
	}
	for _, n := range names {
		if err := r.repo.Storer.SetReference(plumbing.NewHashReference(tracking(n), r.adv.heads[n])); err != nil {
			return err
		}
	}
	for _, p := range prefixes {
		if err := r.prune(p); err != nil {
			return err
		}
		r.covered = append(r.covered, p)
	}
	return nil
}

func tracking(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/origin/" + branch)
}

// has reports whether commit h is on disk. A commit is only ever stored
// with everything it reaches (a fetched pack holds all that the haves do
// not; a commit made here is built on one that is stored), so its tip
// being present is its whole history being present.
//
// It reads the commit: with ExclusiveAccess, go-git's HasEncodedObject
// (v5.19) answers "not found" from its list of loose objects without
// looking in the packs.
func (r *remote) has(h plumbing.Hash) bool {
	_, err := r.store.EncodedObject(plumbing.AnyObject, h)
	return err == nil
}

// prune removes the tracking refs under prefix whose branch origin did
// not advertise.
func (r *remote) prune(prefix string) error {
	refs, err := r.repo.Storer.IterReferences()
	if err != nil {
		return err
	}
	var gone []plumbing.ReferenceName
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		b, ok := strings.CutPrefix(ref.Name().String(), "refs/remotes/origin/")
		if _, there := r.adv.heads[b]; ok && strings.HasPrefix(b, prefix) && !there {
			gone = append(gone, ref.Name())
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range gone {
		if err := r.repo.Storer.RemoveReference(n); err != nil {
			return err
		}
	}
	return nil
}

// uploadPack downloads the objects of wants that the commits on disk do
// not already hold: one POST. Every local tip that origin may know is a
// have, so that only what is new comes.
func (r *remote) uploadPack(ctx context.Context, wants []plumbing.Hash) (err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	s, err := r.session(ctx)
	if err != nil {
		return err
	}
	defer ioutil.CheckClose(s, &err)
	req := packp.NewUploadPackRequestFromCapabilities(r.adv.caps)
	if r.adv.caps.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return err
		}
	}
	req.Wants = wants
	if req.Haves, err = r.haves(); err != nil {
		return err
	}
	resp, err := s.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil // every want is a have: nothing to send
	}
	if err != nil {
		return err
	}
	defer ioutil.CheckClose(resp, &err)
	return packfile.UpdateObjectStorage(r.repo.Storer, demux(req.Capabilities, resp))
}

// haves are the commits on disk that refs point at, the advertised tips
// already on disk and those the cache's packs reach.
func (r *remote) haves() ([]plumbing.Hash, error) {
	var hs []plumbing.Hash
	add := func(h plumbing.Hash) {
		if !slices.Contains(hs, h) && r.has(h) {
			hs = append(hs, h)
		}
	}
	refs, err := r.repo.Storer.IterReferences()
	if err != nil {
		return nil, err
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference {
			add(ref.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, h := range r.adv.heads {
		add(h)
	}
	if r.cache != nil {
		for _, h := range r.cache.tips {
			add(h)
		}
	}
	return hs, nil
}

// trackedTips are the commits the remote-tracking refs point at.
func (r *remote) trackedTips() []plumbing.Hash {
	var hs []plumbing.Hash
	refs, err := r.repo.Storer.IterReferences()
	if err != nil {
		return nil
	}
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && ref.Name().IsRemote() && !slices.Contains(hs, ref.Hash()) {
			hs = append(hs, ref.Hash())
		}
		return nil
	})
	return hs
}

// demux takes the pack out of the side-band channel when the request
// asked for one (go-git's fetch does the same, unexported).
func demux(caps *capability.List, in io.Reader) io.Reader {
	var t sideband.Type
	switch {
	case caps.Supports(capability.Sideband64k):
		t = sideband.Sideband64k
	case caps.Supports(capability.Sideband):
		t = sideband.Sideband
	default:
		return in
	}
	return sideband.NewDemuxer(t, in)
}
