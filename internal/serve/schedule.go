package serve

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// ParseSchedule reads a cron spec as serve and .imagebot.yaml's schedule:
// take it: five fields, a descriptor such as "@hourly" or "@every 30m",
// optionally after "CRON_TZ=Area/City ". A spec that never fires (February
// 30th) is an error, not a server that waits forever.
func ParseSchedule(spec string) (cron.Schedule, error) {
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("%q: %w (want five cron fields such as '0 6 * * 1-5', or @hourly, @daily, '@every 6h')", spec, err)
	}
	if sched.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("%q never fires", spec)
	}
	return sched, nil
}
