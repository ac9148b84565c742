package adopt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Onboard drafts the config the onboarding pull request proposes. A
// repository that Renovate (any config file name Renovate reads) or Flux's
// image automation already updates gets that converted, so that merging
// one pull request switches tools without widening anything; any other is
// read as it is (Init). A Renovate config that cannot be converted (too
// large, not JSON5) still gets its handover: the two bots must not both
// update the same images.
func Onboard(ctx context.Context, fsys fs.FS, o Options) (*Result, error) {
	file, _, err := renovateConfig(fsys)
	switch {
	case err == nil:
		res, cerr := FromRenovate(ctx, fsys, o)
		if cerr == nil || ctx.Err() != nil {
			return res, cerr
		}
		err = cerr
		fallthrough
	case file != "" && !errors.Is(err, ErrNothingToConvert):
		return initInstead(ctx, fsys, o, Note{File: file, Msg: fmt.Sprintf("Renovate's config was not converted: %v", err)}, renovateHandover(file))
	}
	res, err := FromFlux(ctx, fsys, o)
	switch {
	case errors.Is(err, ErrNothingToConvert):
		return Init(ctx, fsys, o)
	case err != nil && ctx.Err() == nil:
		return initInstead(ctx, fsys, o, Note{Msg: fmt.Sprintf("Flux's image automation was not converted: %v", err)}, "Suspend Flux's ImageUpdateAutomation objects once this is merged, or both update the same lines.")
	}
	return res, err
}

// initInstead is Init when the conversion failed: the repository as it
// is, the reason first among the notes, and still the handover.
func initInstead(ctx context.Context, fsys fs.FS, o Options, why Note, handover string) (*Result, error) {
	res, err := Init(ctx, fsys, o)
	if err != nil {
		return nil, err
	}
	res.Notes = append([]Note{why}, res.Notes...)
	res.Handover = handover
	return res, nil
}

// Lead is the top of the onboarding pull request's body, in Markdown:
// what the config was converted from and what was not converted, what to
// turn off in the other tool, and what happens once it is merged.
func (r *Result) Lead() string {
	var b strings.Builder
	switch {
	case r.From != "":
		fmt.Fprintf(&b, "**Converted from %s.** The config below is what `imagebot init --from %s` makes of it: every rule that converts without taking more than it did",
			codeOr(r.From), fromFlag(r.From))
		if len(r.Notes) > 0 {
			fmt.Fprintf(&b, "; %d %s not converted, listed under \"What `init` could not do\" below", len(r.Notes), plural(len(r.Notes), "thing was", "things were"))
		}
		b.WriteString(".\n\n")
	case r.Handover != "":
		b.WriteString("**The other tool's config was found but could not be converted**: the config below reads the repository as it is (see \"What `init` could not do\" below).\n\n")
	}
	if r.Handover != "" {
		b.WriteString("### Turn off the same updates in the other tool\n\n" + r.Handover + "\n\n")
	}
	fmt.Fprintf(&b, "After merging: %s; the rest %s (`pullRequests.perHour` and `maxOpen` in the config; 0 is no limit).\n\n", r.Limits, cmp.Or(r.waits, "waits on the dashboard"))
	return b.String()
}

// codeOr writes a file name as code, a description as it is.
func codeOr(from string) string {
	if strings.Contains(from, " ") {
		return from
	}
	return "`" + inert(from) + "`"
}

func fromFlag(from string) string {
	if strings.HasPrefix(from, "Flux") {
		return "flux"
	}
	return "renovate"
}
