package protocol

import "time"

// TimeFormat is the one time format on the wire and in the log: RFC 3339
// with milliseconds, so calls a few milliseconds apart are told apart.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Time formats t for the wire, in UTC.
func Time(t time.Time) string { return t.UTC().Format(TimeFormat) }
