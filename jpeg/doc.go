// Package jpeg turns camera frames and photo files into the bounded image of
// the AgentCall AG-UI extension 0.1 (spec "Security, photos, and exact
// object lookup"): a metadata-free image/jpeg of at most 61,440 bytes and
// 1,024 pixels on either side, with byteCount, sha256, pixelWidth and
// pixelHeight derived from the final bytes, and verifies received images by
// the receiver rules shared with package protocol.
//
// Encoding favours quality per byte: Lanczos-3 downscaling per Y'CbCr
// plane (a 4:2:2 source's chroma as decoders show it, libjpeg's fancy
// upsampling folded into the weights: resize.go), quantization tables halfway between Annex K and flat, optimized
// Huffman tables, 4:2:0 chroma (a source's 4:2:2 kept only where the
// budget affords quality 85 or more: chroma.go), and a search over a
// continuous quantization scale that stops within 4% under the budget
// (shrinking the picture instead of going below DefaultMinQuality), its
// first full encode aimed by the same search on every fourth MCU row
// (estimate.go).
// File inputs are decoded by libjpeg-turbo (ITU-T T.81 / ISO 10918-1),
// already scaled in the DCT domain where that leaves 1.3 times the target
// size or more (input.go), with a compact coefficient store and early
// stop for progressive files; see turbo.c and store.c. The package needs cgo and
// libjpeg-turbo (Debian: libjpeg62-turbo-dev to build).
//
// Photos are ephemeral (docs/architecture.md, principle 2): nothing here writes a file,
// logs, or puts image bytes into an error.
package jpeg
