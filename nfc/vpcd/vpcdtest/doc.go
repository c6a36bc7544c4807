// Package vpcdtest gates tests on a running pcscd with the vsmartcard-vpcd
// driver (started by scripts/pcscd.sh) and serializes them: every test
// package that drives the virtual reader calls Require, so that `go test
// ./...`, which runs packages in parallel processes, never has two tests
// inserting cards into the same reader or one restarting pcscd under another.
//
// Without pcscd, Require skips the test on a developer machine and fails it
// when ACBRIDGE_REQUIRE_SERVICES is set, as `make test` does, so that CI
// never passes by skipping. The protocol is described in package vpcd.
package vpcdtest
