package serve

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is share Index of Count of a list of clones. The zero value is no
// sharding.
type Shard struct {
	Index, Count int
	// Auto takes Index from the pod's JOB_COMPLETION_INDEX (see Resolve).
	Auto bool
}

// ParseShard reads "i/n", or "auto/n" for an Indexed Job whose pods learn
// their index from Kubernetes.
func ParseShard(spec string) (Shard, error) {
	is, ns, ok := strings.Cut(spec, "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q: want i/n or auto/n", spec)
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("%q: n must be a whole number of at least 1", spec)
	}
	if is == "auto" {
		return Shard{Count: n, Auto: true}, nil
	}
	return shardAt(spec, is, n)
}

func shardAt(spec, is string, n int) (Shard, error) {
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%q: i is %q, want 0 to %d", spec, is, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// Resolve fills in an auto shard's index from jobIndex, the
// JOB_COMPLETION_INDEX that Kubernetes gives each pod of an Indexed Job.
func (s Shard) Resolve(jobIndex string) (Shard, error) {
	if !s.Auto {
		return s, nil
	}
	spec := s.String()
	if jobIndex == "" {
		return Shard{}, fmt.Errorf("%q: JOB_COMPLETION_INDEX is not set (Kubernetes sets it in an Indexed Job; elsewhere give i/n)", spec)
	}
	return shardAt(spec, jobIndex, s.Count)
}

// String is the spec the shard was parsed from.
func (s Shard) String() string {
	if s.Auto {
		return "auto/" + strconv.Itoa(s.Count)
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// keep keeps the URLs whose FNV-1a hash falls in the share. It depends on
// each URL alone, so adding a repository never moves the others to another
// shard, and every pod of a Job computes the same split.
func (s Shard) keep(urls []string) []string {
	var keep []string
	for _, u := range urls {
		if int(fnv32a(u)%uint32(s.Count)) == s.Index {
			keep = append(keep, u)
		}
	}
	return keep
}
