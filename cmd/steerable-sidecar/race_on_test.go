//go:build race

package main

// raceEnabled: the test binary (the sidecar the scripts run) is built with
// -race, which multiplies its memory; [race] in a script.
const raceEnabled = true
