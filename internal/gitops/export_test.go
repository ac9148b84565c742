package gitops

// Diffs is how many commits s has diffed against their parents: each at
// most once, however many walks of its history a run makes.
func Diffs(s *Session) int {
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	return s.hist.diffs
}
