package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// transportFor returns the transport for what go-containerregistry
// fetches in a repository (manifests, configs, signatures, referrers).
// With a cache, manifests and blobs asked for by digest are answered from
// it, what the registry sends for them is kept, and the host is contacted
// (probe, token) only for the first request the cache cannot answer.
func (h *host) transportFor(ctx context.Context, path string) (http.RoundTripper, error) {
	cc := h.c.o.cache
	if cc == nil {
		return h.authTransport(ctx, path)
	}
	// go-containerregistry takes a *transport.Wrapper as already
	// authenticated and adds nothing to it; the only way to make one is
	// NewWithContext, here over a transport that answers its probe itself.
	return transport.NewWithContext(ctx, h.registry(), authn.Anonymous, localProbe{&objects{h: h, path: path, cc: cc}}, nil)
}

// localProbe answers GET /v2/ with 200, so that wrapping costs no request.
type localProbe struct{ next http.RoundTripper }

func (l localProbe) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && req.URL.Path == "/v2/" && req.Response == nil {
		return answer(req, http.StatusOK, http.Header{}, nil), nil
	}
	return l.next.RoundTrip(req)
}

// objects is the caching transport of one repository.
type objects struct {
	h    *host
	path string
	cc   *cache.Cache
}

func (o *objects) RoundTrip(req *http.Request) (*http.Response, error) {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	digest, manifest := o.addressed(first)
	// A HEAD asks whether something is there now, which only the registry
	// can say; a GET by digest asks for content that never changes.
	if req == first && req.Method == http.MethodGet && digest != "" {
		if obj, ok := o.cc.Get(digest); ok {
			o.h.stats.fromCache.Add(1)
			hdr := http.Header{"Docker-Content-Digest": {digest}, "Content-Length": {strconv.Itoa(len(obj.Data))}}
			if obj.MediaType != "" {
				hdr.Set("Content-Type", obj.MediaType)
			}
			return answer(req, http.StatusOK, hdr, obj.Data), nil
		}
	}
	tr, err := o.h.authTransport(req.Context(), o.path)
	if err != nil {
		return nil, err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || (digest == "" && !manifest) {
		return resp, err
	}
	limit := o.h.bodyLimit(kindBlob)
	mediaType := ""
	if manifest {
		limit, mediaType = o.h.bodyLimit(kindManifestGet), resp.Header.Get("Content-Type")
	}
	if resp.ContentLength <= limit {
		resp.Body = &keeper{ReadCloser: resp.Body, cc: o.cc, digest: digest, mediaType: mediaType, limit: limit}
	}
	return resp, nil
}

// addressed tells what a request to this host names: a digest (for a
// manifest or blob by digest), and whether it is a manifest (by digest or
// by tag, whose content is kept under the digest it hashes to).
func (o *objects) addressed(req *http.Request) (digest string, manifest bool) {
	if req.URL.Host != o.h.name {
		return "", false
	}
	p := req.URL.Path
	prefix := "/v2/" + o.path + "/"
	rest, ok := strings.CutPrefix(p, prefix)
	if !ok {
		return "", false
	}
	if ref, ok := strings.CutPrefix(rest, "manifests/"); ok {
		if strings.HasPrefix(ref, "sha256:") {
			return ref, true
		}
		return "", true
	}
	if ref, ok := strings.CutPrefix(rest, "blobs/"); ok && strings.HasPrefix(ref, "sha256:") {
		return ref, false
	}
	return "", false
}

// keeper passes a body through and, once it was read to the end, keeps it
// in the cache under its digest: the one asked for, which it must hash to,
// or for a manifest asked by tag, the one it hashes to.
type keeper struct {
	io.ReadCloser
	cc        *cache.Cache
	digest    string
	mediaType string
	limit     int64
	buf       bytes.Buffer
	over      bool
}

func (k *keeper) Read(p []byte) (int, error) {
	n, err := k.ReadCloser.Read(p)
	if !k.over {
		if int64(k.buf.Len()+n) > k.limit {
			k.over, k.buf = true, bytes.Buffer{}
		} else {
			k.buf.Write(p[:n])
		}
	}
	if err == io.EOF && !k.over {
		sum := sha256.Sum256(k.buf.Bytes())
		got := "sha256:" + hex.EncodeToString(sum[:])
		if k.digest == "" || k.digest == got {
			// Put checks the digest again; a failure only costs a request
			// next time.
			k.cc.Put(got, cache.Object{MediaType: k.mediaType, Data: bytes.Clone(k.buf.Bytes())})
		}
		k.over, k.buf = true, bytes.Buffer{}
	}
	return n, err
}

// answer is a response made here rather than by a registry.
func answer(req *http.Request, status int, hdr http.Header, body []byte) *http.Response {
	return &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: hdr, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)),
		Request: req,
	}
}
