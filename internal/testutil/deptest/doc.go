// Package deptest enforces the layering docs/architecture.md describes,
// in the style of tailscale's tstest/deptest: it lists the module's
// packages with "go list -deps -json" and fails a test for every import
// that crosses a layer the wrong way. The rules themselves are the test
// in layering_test.go; this package only loads the import graph.
package deptest
