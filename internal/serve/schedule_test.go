package serve

import (
	"strings"
	"testing"

	"github.com/robfig/cron/v3"
)

func TestParseSchedule(t *testing.T) {
	for _, tc := range []struct {
		spec, err string
	}{
		{spec: "0 6 * * 1-5"},
		{spec: "@hourly"},
		{spec: "@every 30m"},
		{spec: "CRON_TZ=Europe/Berlin 0 4 * * 1"},
		{spec: "every day", err: `"every day": `},
		{spec: "0 6 * *", err: "want five cron fields"},
		{spec: "0 0 30 2 *", err: "never fires"},
		{spec: "CRON_TZ=Mars/Olympus 0 4 * * 1", err: "Mars/Olympus"},
	} {
		_, err := ParseSchedule(tc.spec)
		if tc.err == "" && err != nil {
			t.Errorf("ParseSchedule(%q) = %v", tc.spec, err)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseSchedule(%q) = %v, want an error with %q", tc.spec, err, tc.err)
		}
	}
}

func mustSchedule(t testing.TB, spec string) cron.Schedule {
	t.Helper()
	s, err := ParseSchedule(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
