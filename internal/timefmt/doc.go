// Package timefmt spells times and durations the way imagebot writes them
// for people: a duration as .imagebot.yaml writes it ("3d", "1d12h",
// "1h30m"), so that a notice quotes a policy as it was written and the
// config prints back as it reads, and an instant in minutes and UTC
// ("2026-03-14 09:26 UTC"), as PR bodies, notices and rollbacks show it.
//
// It sits below every stage, config and the gates included, and imports
// nothing of imagebot. It never parses: config reads durations, with
// errors that point at the file and line.
package timefmt
