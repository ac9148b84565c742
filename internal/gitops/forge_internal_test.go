package gitops

import "testing"

// TestQueryKeeps: what a listing keeps of what a host could not filter:
// never a fork's, and only the state, branch, base and author asked for.
func TestQueryKeeps(t *testing.T) {
	bot := Change{Head: "imagebot/app", Base: "main", OwnBranch: true, State: "open", Author: "Imagebot-Bot"}
	q := Query{State: "open", Prefix: "imagebot/", Base: "main", Author: "imagebot-bot"}
	for _, tc := range []struct {
		name string
		edit func(*Change)
		q    Query
		want bool
	}{
		{"the bot's", func(*Change) {}, q, true},
		{"from a fork", func(c *Change) { c.OwnBranch = false }, q, false},
		{"from a fork, anyone's asked", func(c *Change) { c.OwnBranch = false }, Query{}, false},
		{"another author", func(c *Change) { c.Author = "jane" }, q, false},
		{"an author like the bot's", func(c *Change) { c.Author = "imagebot-bot2" }, q, false},
		{"anyone's asked", func(c *Change) { c.Author = "jane" }, Query{State: "open", Prefix: "imagebot/"}, true},
		{"into another branch", func(c *Change) { c.Base = "release" }, q, false},
		{"another prefix", func(c *Change) { c.Head = "renovate/app" }, q, false},
		{"closed", func(c *Change) { c.State = "closed" }, q, false},
		{"closed, all asked", func(c *Change) { c.State = "closed" }, Query{State: "all", Head: "imagebot/app"}, true},
		{"another head", func(c *Change) { c.Head = "imagebot/app-2" }, Query{Head: "imagebot/app"}, false},
	} {
		c := bot
		tc.edit(&c)
		if got := tc.q.Keeps(&c); got != tc.want {
			t.Errorf("%s: keeps = %t, want %t", tc.name, got, tc.want)
		}
	}
}
