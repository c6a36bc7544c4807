// Package presstosent holds the press-to-sent benchmark: the
// time a person feels from the PHOTO press to the observation leaving the
// device, split into its stages (camera open, mode choice, exposure
// settle, encode, send) beside its floor (one frame interval of the
// chosen mode plus the encode). It has no code of its own; run it with
// bench/presstosent.sh or `go test -run - -bench . ./bench/presstosent`.
package presstosent
