//go:build race

package main

// raceDetector: the race runtime's shadow memory roughly doubles the
// daemon's idle RSS (about 70 MiB instead of 36), so memory bounds meant for
// the shipped binary apply to growth instead (see TestHostileFlood).
const raceDetector = true
