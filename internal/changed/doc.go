// Package changed lets test fakes and emulators (the PN532 emulator, the
// hostile agent) wake the tests that wait for their state, so that a test
// waits on the change it needs instead of polling with sleeps. It
// implements no part of the AgentCall contract.
package changed
