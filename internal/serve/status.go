package serve

// Status is how a run ended. The values are imagebot's exit statuses, so
// that the worst of several runs is the exit status of all of them.
type Status int

const (
	OK      Status = 0 // everything that could be checked was handled
	Failed  Status = 1 // nothing done: bad config, unreadable repository, no checkout
	Partial Status = 2 // some lookups or pull requests failed; the rest were done
)

// worse is the worse of two statuses: Failed over Partial over OK.
func worse(a, b Status) Status {
	if a == Failed || b == Failed {
		return Failed
	}
	if a == Partial || b == Partial {
		return Partial
	}
	return OK
}

// String names a status as the runs_total metric's result label does.
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Partial:
		return "partial"
	}
	return "error"
}
