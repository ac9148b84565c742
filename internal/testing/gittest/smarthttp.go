package gittest

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	gitsrv "github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// inProcess answers git's smart HTTP protocol (version 0, stateless, as
// go-git speaks it) in this process, with go-git's server side (refs
// advertised) and its pack reader and writer, over the same bare
// repositories on disk that githubtest and the git CLI read. A
// push costs no process: `git http-backend` costs three to five per
// request (backend, receive-pack, unpack-objects, a connectivity
// rev-list), which made the tests' git remote their slowest part.
//
// What imagebot relies on behaves as receive-pack does: each ref is
// updated only if it still holds the old value the pusher sent (a lease
// cannot be overtaken between advertisement and update), a create fails
// for a ref that exists, deletes are checked the same way, and an atomic
// push applies all of its updates or none. What it does not do: shallow
// fetches (imagebot never asks for them; refused), side-band progress,
// protocol version 2, and the multi-round negotiation the git CLI needs
// for an incremental fetch; NewHTTPBackend serves those.
type inProcess struct {
	root string
	// multiACK makes it serve fetches as Azure Repos does: multi_ack and
	// multi_ack_detailed advertised, and a fetch that asks for neither
	// refused (RequireMultiACK).
	multiACK atomic.Bool

	mu     sync.Mutex
	locks  map[string]*sync.Mutex  // per repository directory: ref updates
	caches map[string]cache.Object // per repository directory: commits and trees
}

func newInProcess(root string) *inProcess {
	return &inProcess{root: root, locks: map[string]*sync.Mutex{}, caches: map[string]cache.Object{}}
}

// objectCache is dir's cache of commits and trees across requests: every
// fetch walks the history from its wants, and reading each commit and
// tree again from its loose file was most of what a fetch cost. Objects
// never change; blobs are left out, so that the cache stays small beside
// the tests that measure a session's heap.
func (h *inProcess) objectCache(dir string) cache.Object {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.caches[dir]
	if c == nil {
		c = noBlobs{cache.NewObjectLRU(8 * cache.MiByte)}
		h.caches[dir] = c
	}
	return c
}

// noBlobs is a cache that keeps every object but blobs, and only objects
// held in memory: an object read from a pack reads it through the pack
// file of the request that read it, closed when that request ends.
type noBlobs struct{ cache.Object }

func (c noBlobs) Put(o plumbing.EncodedObject) {
	if _, inMemory := o.(*plumbing.MemoryObject); inMemory && o.Type() != plumbing.BlobObject {
		c.Object.Put(o)
	}
}

// cachedObjects answers from c before the storage: go-git's filesystem
// storage opens an object's loose file before it looks in its cache. The
// storage keeps a cache of its own per request.
type cachedObjects struct {
	storer.EncodedObjectStorer
	c cache.Object
}

func (s cachedObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.c.Get(h); ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	o, err := s.EncodedObjectStorer.EncodedObject(t, h)
	if err == nil {
		s.c.Put(o)
	}
	return o, err
}

// lock serialises the ref updates of one repository, so that check and
// set of two concurrent pushes cannot interleave.
func (h *inProcess) lock(dir string) *sync.Mutex {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.locks[dir]
	if l == nil {
		l = &sync.Mutex{}
		h.locks[dir] = l
	}
	return l
}

// ServeHTTP serves /owner/name.git/info/refs, git-upload-pack and
// git-receive-pack; the URL already carries the .git suffix.
func (h *inProcess) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	dir, rest, ok := h.repository(r.URL.Path)
	if !ok {
		http.Error(w, "repository not found", http.StatusNotFound)
		return
	}
	st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
	defer st.Close()
	var err error
	switch {
	case r.Method == http.MethodGet && rest == "info/refs":
		err = advertise(w, st, r.URL.Query().Get("service"), h.multiACK.Load())
	case r.Method == http.MethodPost && rest == transport.UploadPackServiceName:
		err = h.uploadPack(w, r, st, dir)
	case r.Method == http.MethodPost && rest == transport.ReceivePackServiceName:
		err = h.receivePack(w, r, st, dir)
	default:
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err != nil {
		// Before the first byte this is the client's error; after it,
		// the client sees a truncated answer, as from a dying backend.
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// repository maps a request path onto a bare repository under the root
// and the rest of the path; ok is false when there is no such repository.
func (h *inProcess) repository(p string) (dir, rest string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(path.Clean(p), "/"), "/", 3) // owner, name.git, rest
	if len(parts) < 3 || validName(parts[0]) != nil || !strings.HasSuffix(parts[1], ".git") ||
		validName(strings.TrimSuffix(parts[1], ".git")) != nil {
		return "", "", false
	}
	dir = filepath.Join(h.root, parts[0], parts[1])
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || fi.IsDir() {
		return "", "", false
	}
	return dir, parts[2], true
}

// loader hands go-git's server side the storage of this request.
type loader struct{ st storer.Storer }

func (l loader) Load(*transport.Endpoint) (storer.Storer, error) { return l.st, nil }

// advertise answers GET info/refs?service=...: the refs, HEAD's symref and
// the capabilities, after the service line smart HTTP puts first.
func advertise(w http.ResponseWriter, st storer.Storer, service string, multiACK bool) error {
	srv := gitsrv.NewServer(loader{st})
	var ar *packp.AdvRefs
	var err error
	switch service {
	case transport.UploadPackServiceName:
		var s transport.UploadPackSession
		if s, err = srv.NewUploadPackSession(&transport.Endpoint{}, nil); err == nil {
			ar, err = s.AdvertisedReferences()
		}
		if err == nil && multiACK {
			err = errors.Join(ar.Capabilities.Add(capability.MultiACK), ar.Capabilities.Add(capability.MultiACKDetailed))
		}
	case transport.ReceivePackServiceName:
		var s transport.ReceivePackSession
		if s, err = srv.NewReceivePackSession(&transport.Endpoint{}, nil); err == nil {
			ar, err = s.AdvertisedReferences()
		}
		if err == nil {
			err = ar.Capabilities.Add(capability.Atomic)
		}
	default:
		// Dumb HTTP, which git falls back to without a service; no
		// client of ours speaks it.
		return fmt.Errorf("service %q: only smart HTTP is served", service)
	}
	if err != nil {
		return fmt.Errorf("advertise refs: %w", err)
	}
	if service == transport.UploadPackServiceName {
		peel(ar, st)
	}
	ar.Prefix = [][]byte{[]byte("# service=" + service), pktline.Flush}
	w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
	w.Header().Set("Cache-Control", "no-cache")
	return ar.Encode(w)
}

// body is the request body, gunzipped when the client compressed it (the
// git CLI does for large requests).
func body(r *http.Request) (io.Reader, error) {
	if r.Header.Get("Content-Encoding") != "gzip" {
		return r.Body, nil
	}
	return gzip.NewReader(r.Body)
}

// uploadPack answers a fetch: the wants and capabilities, the haves, then
// a pack of what the wants reach and the haves do not.
func (h *inProcess) uploadPack(w http.ResponseWriter, r *http.Request, st storer.Storer, dir string) error {
	in, err := body(r)
	if err != nil {
		return err
	}
	req := packp.NewUploadPackRequest()
	if err := req.UploadRequest.Decode(in); err != nil {
		return fmt.Errorf("upload-pack request: %w", err)
	}
	if req.Haves, err = haves(in, st); err != nil {
		return fmt.Errorf("upload-pack request: %w", err)
	}
	if !req.Depth.IsZero() || len(req.Shallows) > 0 {
		return errors.New("upload-pack: shallow fetches are served by NewHTTPBackend only")
	}
	multi := req.Capabilities.Supports(capability.MultiACK) || req.Capabilities.Supports(capability.MultiACKDetailed)
	if h.multiACK.Load() && !multi {
		http.Error(w, "upload-pack: this server requires multi_ack or multi_ack_detailed (as Azure Repos does)", http.StatusBadRequest)
		return nil
	}
	objects := cachedObjects{st, h.objectCache(dir)}
	objs, err := objectsToUpload(objects, req.Wants, req.Haves)
	if err != nil {
		return fmt.Errorf("upload-pack: %w", err)
	}
	w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
	w.Header().Set("Cache-Control", "no-cache")
	if err := acknowledge(pktline.NewEncoder(w), req, multi); err != nil {
		return err
	}
	return writePack(w, objects, objs)
}

// writePack writes objs as a pack of whole objects, each deflated at
// zlib's fastest level: the pack crosses no network, so neither delta
// search nor a small pack buys anything, and go-git's encoder, which
// always deflates at the default level, made deflating every object of
// every fetch the largest CPU cost of the tests' git remote. (Stored,
// uncompressed entries cost less still, but their larger answers made a
// fetch through the fake GitLab's proxy end early under load.)
func writePack(w io.Writer, st storer.EncodedObjectStorer, objs []plumbing.Hash) error {
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(len(objs)))
	bw.Write(head[:])
	zw, _ := zlib.NewWriterLevel(bw, zlib.BestSpeed)
	for _, h := range objs {
		o, err := st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return fmt.Errorf("pack %s: %w", h, err)
		}
		// The entry's header: type, then the size 4 bits and 7 bits at
		// a time, lowest first, the high bit saying more follow.
		size := uint64(o.Size())
		b := byte(o.Type())<<4 | byte(size&0x0f)
		for size >>= 4; size > 0; size >>= 7 {
			bw.WriteByte(b | 0x80)
			b = byte(size & 0x7f)
		}
		bw.WriteByte(b)
		r, err := o.Reader()
		if err != nil {
			return fmt.Errorf("pack %s: %w", h, err)
		}
		zw.Reset(bw)
		_, err = io.Copy(zw, r)
		r.Close()
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			return fmt.Errorf("pack %s: %w", h, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// acknowledge answers the haves after "done": NAK without multi_ack or
// without a common commit; with multi_ack_detailed, an "ACK common" per
// common have, then the final ACK of the last, as upload-pack does.
func acknowledge(e *pktline.Encoder, req *packp.UploadPackRequest, multi bool) error {
	if !multi || len(req.Haves) == 0 {
		return e.EncodeString("NAK\n")
	}
	if req.Capabilities.Supports(capability.MultiACKDetailed) {
		for _, h := range req.Haves {
			if err := e.Encodef("ACK %s common\n", h); err != nil {
				return err
			}
		}
	}
	return e.Encodef("ACK %s\n", req.Haves[len(req.Haves)-1])
}

// objectsToUpload is every object the wants reach that the haves do not.
func objectsToUpload(st storer.EncodedObjectStorer, wants, haves []plumbing.Hash) ([]plumbing.Hash, error) {
	have, err := revlist.Objects(st, haves, nil)
	if err != nil {
		return nil, err
	}
	return revlist.Objects(st, wants, have)
}

// haves reads the "have" lines up to "done", keeping the commits this
// repository holds: a client offers every tip it has, including commits
// a refused push never delivered, and upload-pack ignores those.
func haves(in io.Reader, st storer.Storer) ([]plumbing.Hash, error) {
	var hs []plumbing.Hash
	sc := pktline.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSuffix(string(sc.Bytes()), "\n")
		if line == "done" {
			return hs, nil
		}
		h, ok := strings.CutPrefix(line, "have ")
		if !ok {
			continue // a flush between rounds of haves
		}
		hash := plumbing.NewHash(h)
		if st.HasEncodedObject(hash) == nil {
			hs = append(hs, hash)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return hs, nil
}

// receivePack takes a push: it stores the pack, then updates each ref
// only if it still holds the old value the pusher sent, as receive-pack
// does under its ref locks.
func (h *inProcess) receivePack(w http.ResponseWriter, r *http.Request, st *filesystem.Storage, dir string) error {
	in, err := body(r)
	if err != nil {
		return err
	}
	br := bufio.NewReader(in)
	if first, _ := br.Peek(4); string(first) == "0000" {
		// No commands: the git CLI's probe before a chunked push, to
		// which receive-pack answers nothing.
		return nil
	}
	req := packp.NewReferenceUpdateRequest()
	if err := req.Decode(br); err != nil {
		return fmt.Errorf("receive-pack request: %w", err)
	}
	rs := packp.NewReportStatus()
	rs.UnpackStatus = "ok"
	if err := unpack(st, req.Packfile); err != nil {
		rs.UnpackStatus = err.Error()
		for _, c := range req.Commands {
			rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: c.Name, Status: "unpacker error"})
		}
	} else {
		l := h.lock(dir)
		l.Lock()
		rs.CommandStatuses = update(st, req.Commands, req.Capabilities.Supports(capability.Atomic))
		l.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
	w.Header().Set("Cache-Control", "no-cache")
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return nil
	}
	return rs.Encode(w)
}

// unpack stores the pushed pack's objects as loose objects, as
// receive-pack's unpack-objects does for a small push; a push of deletes
// only sends no pack. Keeping the pack instead would leave a pack per push,
// and every reader of the repository (githubtest, the tests) decodes every
// pack's index each time it opens it: that cost more than git's processes.
func unpack(st *filesystem.Storage, pack io.ReadCloser) error {
	if pack == nil {
		return nil
	}
	br := bufio.NewReader(pack)
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		return nil
	}
	// Without its PackfileWriter, go-git's parser stores object by object.
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(br), looseOnly{st})
	if err != nil {
		return err
	}
	_, err = p.Parse()
	return err
}

// looseOnly is a storage without the PackfileWriter of go-git's filesystem
// storage, so that objects are written loose.
type looseOnly struct{ storer.EncodedObjectStorer }

// update applies the commands whose old value still holds, or with atomic
// none unless all hold, and reports each as receive-pack does.
func update(st *filesystem.Storage, cmds []*packp.Command, atomic bool) []*packp.CommandStatus {
	statuses := make([]*packp.CommandStatus, len(cmds))
	failed := false
	for i, c := range cmds {
		statuses[i] = &packp.CommandStatus{ReferenceName: c.Name, Status: "ok"}
		if err := check(st, c); err != nil {
			statuses[i].Status = err.Error()
			failed = true
		}
	}
	for i, c := range cmds {
		switch {
		case statuses[i].Status != "ok":
		case atomic && failed:
			statuses[i].Status = "atomic push failure"
		case c.Action() == packp.Delete:
			if err := st.RemoveReference(c.Name); err != nil {
				statuses[i].Status = err.Error()
			}
		default:
			if err := st.SetReference(plumbing.NewHashReference(c.Name, c.New)); err != nil {
				statuses[i].Status = err.Error()
			}
		}
	}
	return statuses
}

// check reports why c cannot be applied: its ref no longer holds c.Old
// (absent, for a create), or its new commit was never sent.
func check(st *filesystem.Storage, c *packp.Command) error {
	if !strings.HasPrefix(string(c.Name), "refs/") {
		return errors.New("funny refname")
	}
	cur := plumbing.ZeroHash
	ref, err := st.Reference(c.Name)
	switch {
	case err == nil:
		cur = ref.Hash()
	case !errors.Is(err, plumbing.ErrReferenceNotFound):
		return fmt.Errorf("failed to lock: %v", err)
	}
	if cur != c.Old {
		return fmt.Errorf("failed to update ref: is at %s but expected %s", cur, c.Old)
	}
	if c.Action() != packp.Delete && st.HasEncodedObject(c.New) != nil {
		return errors.New("missing necessary objects")
	}
	return nil
}

// peel adds the commit of each annotated tag ("refs/tags/v1^{}"), as git's
// upload-pack advertises it (go-git's server side does not): ls-remote
// reads a tag's commit from it.
func peel(ar *packp.AdvRefs, st storer.Storer) {
	for name, h := range ar.References {
		if !strings.HasPrefix(name, "refs/tags/") {
			continue
		}
		if t, err := object.GetTag(st, h); err == nil {
			ar.Peeled[name] = t.Target
		}
	}
}
