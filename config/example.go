package config

import _ "embed"

// Example is the annotated example configuration shipped with acbridge.
//
//go:embed acbridge.example.toml
var Example []byte
