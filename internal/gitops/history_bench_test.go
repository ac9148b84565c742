package gitops_test

import "testing"

// BenchmarkRolloutHistory is the history part of a run with rollouts:
// three promotions and a pre-pull decided from 300 commits in a
// repository with 200 other directories (see newHistoryRepo). Opening the
// session and planning are outside the timer; each iteration has a fresh
// session, as each run has.
func BenchmarkRolloutHistory(b *testing.B) {
	h := newHistoryRepo(b, 299, 200)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := h.open(b)
		p, refs := h.plan(b, s)
		b.StartTimer()
		h.apply(b, s, p, refs)
		if i == 0 {
			b.StopTimer()
			h.checkDecided(b, p)
			b.StartTimer()
		}
	}
}
