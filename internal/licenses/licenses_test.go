package licenses

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Opening phrases of licence texts, enough for the matcher, rewrapped and
// commented as they appear in the wild.
const (
	mitText = `MIT License

Copyright (c) 2019 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software ... The above copyright notice and this permission notice
(including the next paragraph) shall be included in all copies or
substantial portions of the Software.`
	bsd2Text = `Copyright (c) 2016, A Person
Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:
1. ... 2. Redistributions in binary form must reproduce the above copyright notice`
	bsd3Text = bsd2Text + `
3. Neither the name of the copyright holder nor the names of its contributors may be used`
	gpl2Text = `                    GNU GENERAL PUBLIC LICENSE
                       Version 2, June 1991`
	lgplText = `		   GNU LESSER GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007
 ... the GNU General Public License, version 3`
	mplText = `Mozilla Public License Version 2.0
... "Secondary License" means either the GNU General Public License,
Version 2.0, the GNU Lesser General Public License, Version 2.1, ...`
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []ID
	}{
		{"mit", mitText, []ID{MIT}},
		{"bsd2", bsd2Text, []ID{BSD2}},
		{"bsd3", bsd3Text, []ID{BSD3}},
		{"bsd3 commented", "// " + strings.ReplaceAll(bsd3Text, "\n", "\n// "), []ID{BSD3}},
		{"gpl2", gpl2Text, []ID{GPL2}},
		{"lgpl3", lgplText, []ID{LGPL}},
		{"mpl names the GNU licences as secondary", mplText, []ID{MPL2}},
		{"dual", mitText + "\n\n" + bsd3Text, []ID{MIT, BSD3}},
		{"unknown", "All rights reserved. Do not copy.", nil},
	} {
		if got := Classify(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%s: Classify = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCopyrights(t *testing.T) {
	got := Copyrights(bsd3Text + "\nCopyright 2001-2011 Xiph.Org, Skype Limited,\nthe above copyright notice 2020")
	want := []string{"2016, A Person", "2001-2011 Xiph.Org, Skype Limited,"}
	if !slices.Equal(got, want) {
		t.Errorf("Copyrights = %q, want %q", got, want)
	}
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestModuleEntryRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"gpl", map[string]string{"COPYING": gpl2Text}, "is GPL-2.0, which cannot be linked statically"},
		{"lgpl", map[string]string{"LICENSE": lgplText}, "is LGPL, which cannot be linked statically"},
		{"unknown", map[string]string{"LICENSE.md": "Use it as you like, but not on Tuesdays."}, "not a licence text the classifier knows"},
		{"none", map[string]string{"README": mitText}, "no licence file"},
		{"bundled C under the GPL", map[string]string{"LICENSE": mitText, "c/LICENSE": gpl2Text}, "c/LICENSE is GPL-2.0"},
	} {
		dir := writeModule(t, c.files)
		_, err := moduleEntry("example.com/m@v1.0.0", dir, nil, []string{"c/LICENSE"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestModuleEntryAccepts(t *testing.T) {
	dir := writeModule(t, map[string]string{"LICENSE": mitText, "NOTICE": "Includes code by B.", "c/LICENSE": bsd3Text})
	e, err := moduleEntry("example.com/m@v1.0.0", dir, nil, []string{"c/LICENSE"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.ids, []ID{MIT, BSD3}) || len(e.texts) != 2 || len(e.notices) != 1 {
		t.Errorf("entry = ids %v, %d texts, %d notices; want MIT and BSD-3-Clause, 2 texts, 1 notice", e.ids, len(e.texts), len(e.notices))
	}
}

// TestWrite writes the copyright file of this test binary: the standard
// library alone, since the package imports no module.
func TestWrite(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	sum, err := Write(&b, &Options{Binary: exe, ModCache: t.TempDir(), GoRoot: runtime.GOROOT(), Source: "https://example.invalid/acbridge"})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n",
		"Files: *\nCopyright: the acbridge authors\nLicense: Apache-2.0\n",
		"Files: go/*\n",
		"License: BSD-3-Clause\n Copyright",
		"\nLicense: Apache-2.0\n On Debian systems, the complete text of this licence is in\n /usr/share/common-licenses/Apache-2.0.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("copyright file lacks %q", want)
		}
	}
	if sum.Modules != 0 {
		t.Errorf("Modules = %d, want 0", sum.Modules)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.TrimSpace(l) == "" && l != "" {
			t.Errorf("a blank continuation line is not written as \" .\": %q", l)
		}
	}
	if _, err := Write(&b, &Options{Binary: filepath.Join(t.TempDir(), "none"), ModCache: "x", GoRoot: "y"}); err == nil {
		t.Error("Write of a missing binary succeeded")
	}
	var r Refused
	if _, err := Write(&b, &Options{Binary: exe, ModCache: "x", GoRoot: t.TempDir()}); !errors.As(err, &r) {
		t.Errorf("Write with no standard library licence: err = %v, want Refused", err)
	}
}
