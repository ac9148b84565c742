package gitsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/internal/fetch"
	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/retry"
	"github.com/imagebot/imagebot/internal/secret"
)

// listingType is the media type listings are kept under in the cache.
const listingType = "application/vnd.imagebot.git-refs.v1+json"

// load lists the repository at u: from the cache while fresh, else with
// one ref advertisement through go-git's smart-HTTP client, over the
// Client's transport (retries, the local guard, the byte cap).
func (c *Client) load(ctx context.Context, u *url.URL) (Listing, error) {
	shown := secret.Redact(u)
	refsURL := shown + "/info/refs?service=git-upload-pack"
	private := u.User != nil // what a URL's own credentials read is for that URL alone
	if !private && c.o.Cache != nil {
		if d, o, ok := c.o.Cache.Document(refsURL, listingType); ok && c.o.Cache.FreshDocument(d) {
			var l Listing
			if json.Unmarshal(o.Data, &l) == nil {
				c.f.FromCache(u.Host)
				return l, nil
			}
		}
	}
	if err := c.f.CheckLocal(u); err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	// The repository's time starts once it has a slot of its host.
	release, err := c.acquire(ctx, u.Host)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	defer release()
	ctx, cancel := c.f.Deadline(ctx)
	defer cancel()
	hc := c.f.HTTP(u)
	ep, err := transport.NewEndpoint(shown)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	sess, err := githttp.NewClient(hc).NewUploadPackSession(ep, nil)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: explain(ctx, err, c.o.Timeout)}
	}
	l := Listing{}
	for name, h := range ar.References {
		switch {
		case strings.HasPrefix(name, "refs/tags/") && !strings.HasSuffix(name, "^{}"):
			commit := h
			if p, ok := ar.Peeled[name]; ok {
				commit = p // an annotated tag's commit
			}
			l.Tags = append(l.Tags, Tag{Name: strings.TrimPrefix(name, "refs/tags/"), Commit: commit.String()})
		case strings.HasPrefix(name, "refs/heads/"):
			l.Branches = append(l.Branches, strings.TrimPrefix(name, "refs/heads/"))
		}
	}
	sort.Slice(l.Tags, func(i, j int) bool { return l.Tags[i].Name < l.Tags[j].Name })
	sort.Strings(l.Branches)
	if !private && c.o.Cache != nil {
		if data, err := json.Marshal(l); err == nil {
			_ = c.o.Cache.PutDocument(cache.Document{URL: refsURL, Checked: c.o.Cache.Now()}, cache.Object{MediaType: listingType, Data: data})
		}
	}
	return l, nil
}

// explain says what a failed advertisement means, plainly.
func explain(ctx context.Context, err error, timeout time.Duration) error {
	var he *errHTML
	switch {
	case errors.Is(err, localnet.ErrLocal):
		// A name that resolves to this machine or its networks: refused
		// when dialled, as a local host spelt out is before any request.
		return fetch.Plain(err)
	case fetch.TimedOut(ctx):
		return fmt.Errorf("no answer within %s: check the URL and that the host is reachable", timeout)
	case errors.As(err, &he):
		return he
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return errors.New("not found (404): check the URL; a private repository needs credentials for its host in the config")
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return errors.New("the host wants credentials, or refused those given: give them for its host in the config (registries: HOST: username, passwordEnv)")
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return errors.New("the repository is empty: it has no tags")
	}
	return err
}

type errHTML struct{ status string }

func (e *errHTML) Error() string {
	return "the answer is an HTML page (" + e.status + "), not git's ref advertisement: a login page or a web site? check that the URL is the repository's"
}

// inspect refuses, before its body is read, an answer that is not what
// git's smart HTTP sends: an HTML page (a login page, a web site) or,
// where the advertisement belongs, any other content type (a dumb HTTP
// server, a file).
func inspect(req *http.Request, resp *http.Response) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode != http.StatusOK:
	case mt == "text/html":
		return &errHTML{status: resp.Status}
	case strings.HasSuffix(req.URL.Path, "/info/refs") && mt != "application/x-git-upload-pack-advertisement":
		return &retry.Permanent{Err: fmt.Errorf("the answer (%s) is not git's smart HTTP ref advertisement: is the URL a git repository's?", orNone(mt))}
	}
	return nil
}

// Serves reports whether assetURL (a release asset or raw file at a tag)
// is there: one HEAD, redirects followed, asked once per Client. A 404 is
// false; another failure is an error naming the URL.
func (c *Client) Serves(ctx context.Context, assetURL string) (bool, error) {
	u, err := url.Parse(assetURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return false, &Error{URL: fetch.RedactString(assetURL), Err: errors.New("not an http:// or https:// URL")}
	}
	return c.assets.Get(ctx, assetURL, func(ctx context.Context) (bool, error) {
		if err := c.f.CheckLocal(u); err != nil {
			return false, &Error{URL: secret.Redact(u), Err: err}
		}
		release, err := c.acquire(ctx, u.Host)
		if err != nil {
			return false, &Error{URL: secret.Redact(u), Err: err}
		}
		defer release()
		ctx, cancel := c.f.Deadline(ctx)
		defer cancel()
		plain := *u
		plain.User = nil
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, plain.String(), nil)
		if err != nil {
			return false, &Error{URL: secret.Redact(u), Err: err}
		}
		elsewhere := false // redirected to another host
		hc := c.f.HTTP(u)
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			elsewhere = elsewhere || req.URL.Host != u.Host
			return c.f.CheckRedirect(req, via)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return false, &Error{URL: secret.Redact(u), Err: explain(ctx, err, c.o.Timeout)}
		}
		resp.Body.Close()
		switch code := resp.StatusCode; {
		case code == http.StatusOK:
			return true, nil
		case code == http.StatusNotFound || code == http.StatusGone:
			return false, nil
		case elsewhere && (code == http.StatusForbidden || code == http.StatusMethodNotAllowed):
			// The forge sent us on to its storage (GitHub's release
			// downloads go to a URL signed for GET alone), which it does
			// only for an asset it has: a missing one is its own 404.
			return true, nil
		}
		return false, &Error{URL: secret.Redact(u), Err: fmt.Errorf("HEAD answered %s", resp.Status)}
	})
}

func orNone(mt string) string {
	if mt == "" {
		return "no content type"
	}
	return mt
}
