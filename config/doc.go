// Package config reads acbridge's one configuration file
// (/etc/acbridge/acbridge.toml), applies documented defaults and validates
// every key before anything is opened, so that `acbridge run --check-config`
// can tell an operator every mistake at once. The annotated example,
// acbridge.example.toml beside this file, documents every key; a test keeps
// the two in step.
//
// config is a package of its own (the first design put parsing in
// cmd/acbridge) because `acbridge run`, `acbridge accept` and `acbridge doctor` all read
// the same file.
package config
