package secret

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxErrorBody is how much of an error answer's body is kept: client
// libraries quote a message from it, never megabytes.
const maxErrorBody = 256 << 10

// Transport scrubs what comes back of a request's credentials (Of) and of
// anything shaped like one (Scrub): the body of every error answer (4xx,
// 5xx), read up to 256 KiB, before a client library parses and quotes it,
// and the message of a transport error. It must sit below whatever adds
// the credentials, so that it sees them. nil next is
// http.DefaultTransport.
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	if t, ok := next.(*transport); ok {
		return t
	}
	return &transport{next: next}
}

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, Error(err, Of(req)...)
	}
	if resp.StatusCode < 400 || resp.Body == nil || resp.Body == http.NoBody {
		return resp, nil
	}
	var r io.Reader = resp.Body
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		// Asked for by the caller, so not undone by net/http: undone
		// here, or the scrubbing would read compressed bytes.
		if zr, err := gzip.NewReader(resp.Body); err == nil {
			r = zr
		}
		resp.Header.Del("Content-Encoding")
	}
	b, rerr := io.ReadAll(io.LimitReader(r, maxErrorBody))
	resp.Body.Close()
	clean := ScrubBody(b, Of(req)...)
	if rerr != nil && len(clean) == 0 {
		clean = []byte(resp.Status)
	}
	resp.Body = io.NopCloser(bytes.NewReader(clean))
	resp.ContentLength = int64(len(clean))
	resp.Header.Set("Content-Length", strconv.Itoa(len(clean)))
	return resp, nil
}
