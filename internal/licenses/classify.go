package licenses

import (
	"regexp"
	"strings"
)

// ID is an SPDX short identifier, as Debian's copyright format uses them.
type ID string

// The licences the classifier knows. Each is recognised by phrases that only
// its text carries; GPL-family texts are recognised so that they are refused
// by name instead of as "unknown".
const (
	Apache2   ID = "Apache-2.0"
	MIT       ID = "MIT"
	ISC       ID = "ISC"
	BSD2      ID = "BSD-2-Clause"
	BSD3      ID = "BSD-3-Clause"
	MPL2      ID = "MPL-2.0"
	Unlicense ID = "Unlicense"
	CC0       ID = "CC0-1.0"
	Zlib      ID = "Zlib"
	GPL2      ID = "GPL-2.0"
	GPL3      ID = "GPL-3.0"
	LGPL      ID = "LGPL"
	AGPL3     ID = "AGPL-3.0"
)

// compatible lists the licences whose code may be linked statically into
// acbridge and distributed under Apache-2.0: the permissive ones, and
// MPL-2.0, whose copyleft stays with the MPL'd files themselves. GPL-2.0 is
// incompatible with Apache-2.0; GPL-3.0 and AGPL-3.0 would make the whole
// binary GPL; LGPL asks that users can relink, which a static Go binary
// does not allow. Anything else is refused until someone reads it.
var compatible = map[ID]bool{Apache2: true, MIT: true, ISC: true, BSD2: true, BSD3: true, MPL2: true, Unlicense: true, CC0: true, Zlib: true}

// Compatible reports whether code under id may be linked into acbridge.
func Compatible(id ID) bool { return compatible[id] }

// matcher recognises one licence: every phrase in all must occur in the
// normalised text, and none in not.
type matcher struct {
	id  ID
	all []string
	not []string
}

// The order matters only for readability: every matcher is tried.
var matchers = []matcher{
	{id: Apache2, all: []string{"apache license", "version 2.0", "terms and conditions for use, reproduction, and distribution"}},
	{id: MIT, all: []string{"permission is hereby granted, free of charge, to any person obtaining a copy", "shall be included in all copies or substantial portions of the software"}},
	{id: ISC, all: []string{"permission to use, copy, modify, and", "distribute this software for any purpose with or without fee is hereby granted", "the software is provided \"as is\" and the author disclaims all warranties"}},
	{id: BSD3, all: []string{"redistribution and use in source and binary forms, with or without modification, are permitted", "neither the name"}},
	{id: BSD2, all: []string{"redistribution and use in source and binary forms, with or without modification, are permitted", "redistributions in binary form must reproduce"}, not: []string{"neither the name", "names of its contributors may be used"}},
	{id: MPL2, all: []string{"mozilla public license version 2.0"}},
	{id: Unlicense, all: []string{"this is free and unencumbered software released into the public domain"}},
	{id: CC0, all: []string{"cc0 1.0 universal"}},
	{id: Zlib, all: []string{"this software is provided 'as-is', without any express or implied warranty", "altered source versions must be plainly marked as such"}},
	{id: AGPL3, all: []string{"gnu affero general public license"}},
	{id: LGPL, all: []string{"gnu lesser general public license"}},
	{id: LGPL, all: []string{"gnu library general public license"}},
	{id: GPL3, all: []string{"gnu general public license", "version 3"}, not: []string{"gnu lesser general public license", "gnu affero general public license"}},
	{id: GPL2, all: []string{"gnu general public license", "version 2"}, not: []string{"gnu lesser general public license", "gnu library general public license", "version 3"}},
}

var space = regexp.MustCompile(`[\s*#/]+`)

// normalise lower-cases text and folds comment markers, line breaks and
// runs of white space to one space, so that rewrapped or commented copies
// of a licence still match.
func normalise(text string) string {
	t := strings.ToLower(text)
	t = strings.NewReplacer("\u201c", "\"", "\u201d", "\"", "\u2019", "'", "\u00a9", "(c)").Replace(t)
	return space.ReplaceAllString(t, " ")
}

// Classify names the licences a licence file's text grants. An empty result
// means the text is not one the classifier knows. MPL-2.0 names the GNU
// licences as possible "Secondary Licenses", so they are not reported
// alongside it.
func Classify(text string) []ID {
	t := normalise(text)
	var found []ID
	seen := map[ID]bool{}
	for _, m := range matchers {
		if seen[m.id] || !matchesAll(t, m) {
			continue
		}
		seen[m.id] = true
		found = append(found, m.id)
	}
	if seen[MPL2] {
		kept := found[:0]
		for _, id := range found {
			if id != GPL2 && id != GPL3 && id != LGPL && id != AGPL3 {
				kept = append(kept, id)
			}
		}
		found = kept
	}
	return found
}

func matchesAll(t string, m matcher) bool {
	for _, p := range m.all {
		if !strings.Contains(t, p) {
			return false
		}
	}
	for _, p := range m.not {
		if strings.Contains(t, p) {
			return false
		}
	}
	return true
}

// copyrightLine matches the lines of a licence text that state a copyright.
var copyrightLine = regexp.MustCompile(`(?im)^\s*(copyright\s*(\(c\)|©)?\s*.*\d{4}.*)$`)

var copyrightWord = regexp.MustCompile(`(?i)^copyright\s*(\(c\)|©)?\s*`)

// Copyrights returns the copyright statements of a licence text, without
// the leading word, as the Copyright field wants them.
func Copyrights(text string) []string {
	var out []string
	for _, m := range copyrightLine.FindAllStringSubmatch(text, -1) {
		line := strings.TrimSpace(m[1])
		line = copyrightWord.ReplaceAllString(line, "")
		if line != "" && !strings.Contains(strings.ToLower(line), "copyright notice") {
			out = append(out, line)
		}
	}
	return out
}
