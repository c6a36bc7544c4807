// Package licenses writes the Debian copyright file of the acbridge package
// (machine-readable format 1.0,
// https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/) from
// the Go modules linked into a binary, as its build information lists them,
// with the licence texts found in the module cache.
//
// The licences are classified by a small hand-written matcher of the common
// licence texts (classify.go) rather than github.com/google/licenseclassifier:
// the module graph holds about a dozen distinct texts, all standard, and the
// matcher keeps the build free of a large dependency and its corpus. A text
// the matcher does not know, or a licence that cannot be combined with
// acbridge's Apache-2.0 in a statically linked binary, fails the build: a
// person reads the new licence and extends the table.
package licenses
