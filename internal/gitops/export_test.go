package gitops

// Diffs is how many commits s has diffed against their parents: each at
// most once, however many walks of its history a run makes.
func Diffs(s *Session) int {
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	return s.hist.diffs
}

// BlobBytes is how many bytes of blob content s has read from its clone.
func BlobBytes(s *Session) int64 { return s.rm.store.blobBytes.Load() }

// ObjectCacheSize bounds the inflated objects a session's clone keeps.
const ObjectCacheSize = objectCacheSize
