// Package bridgetest holds what drives a bridge from outside: Transcript,
// the Out writer and Display that tests and the demo wait on. It is kept
// out of package bridge, which the daemon ships, because only they use it.
package bridgetest
