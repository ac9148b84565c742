package forge

import (
	"errors"
	"fmt"
)

// MaxPages bounds a listing read to its end: 1,000 pages are 50,000 to
// 100,000 change requests, comments or projects, more than any repository
// or group imagebot serves has. A host that keeps answering "next" beyond
// it (a proxy that loses the page parameter, a bug) fails the listing
// rather than the run's memory and quota.
const MaxPages = 1000

// The first few pages the lifecycle reads of a listing it does not need to
// its end, the same on every host.
const (
	// IssuePages bounds the pages of the bot's issues looked through for
	// its dashboard (FindIssue).
	IssuePages = 3
	// StatusPages bounds the pages of one commit's statuses or check
	// runs: 1,000 of each is far beyond what a commit carries.
	StatusPages = 10
	// RecentPages bounds RecentChanges: an hour's change requests fit in
	// a page on any repository imagebot serves; a host that keeps
	// answering with newer ones is not read to its end.
	RecentPages = 10
)

// ErrTooManyPages is a listing that went on past its cap.
var ErrTooManyPages = errors.New("too many pages")

// Pages reads a listing page by page, the one loop every driver's listings
// use: page reads page n (the first is 1), handles its items and returns
// the next page's number as the host gave it, or 0 to stop (the last page,
// or the caller has what it wants). A next page that is not after n links
// back, which read on would loop: it is an error. limit > 0 reads at most
// limit pages ("the first few": a dashboard's issues, a commit's
// statuses) and stops there; limit <= 0 reads to the end, and past
// MaxPages is an error. what names the listing in errors ("list open pull
// requests").
func Pages(what string, limit int, page func(n int) (next int, err error)) error {
	for n, read := 1, 1; ; read++ {
		next, err := page(n)
		switch {
		case err != nil:
			return err
		case next == 0:
			return nil
		case next <= n:
			return fmt.Errorf("%s: page %d links back to page %d", what, n, next)
		case limit > 0 && read >= limit:
			return nil
		case read >= MaxPages:
			return fmt.Errorf("%s: %w: more than %d", what, ErrTooManyPages, MaxPages)
		}
		n = next
	}
}

// TokenPages is Pages for a host that pages by continuation token (Azure
// DevOps' x-ms-continuationtoken): page reads the page token names (the
// first is "") and returns the next page's token, or "" to stop. A token
// seen before links back: an error, as in Pages. The same cap holds.
func TokenPages(what string, limit int, page func(token string) (next string, err error)) error {
	seen := map[string]bool{"": true}
	for token, read := "", 1; ; read++ {
		next, err := page(token)
		switch {
		case err != nil:
			return err
		case next == "":
			return nil
		case seen[next]:
			return fmt.Errorf("%s: page %d repeats an earlier continuation token", what, read)
		case limit > 0 && read >= limit:
			return nil
		case read >= MaxPages:
			return fmt.Errorf("%s: %w: more than %d", what, ErrTooManyPages, MaxPages)
		}
		seen[next] = true
		token = next
	}
}
