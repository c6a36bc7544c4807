package kiosk_test

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStylesheetContrast computes the contrast of every text colour of the
// stylesheet against the background of its own rule, or, where the rule
// sets none, against each of the page's surfaces: all ≥ 4.5:1 (WCAG 2.2
// 1.4.3), disabled controls included. TestBrowserStates measures the
// rendered page as well.
func TestStylesheetContrast(t *testing.T) {
	css, err := os.ReadFile("static/kiosk.css")
	if err != nil {
		t.Fatal(err)
	}
	src := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(css), "")
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(--[a-z0-9-]+):\s*(#[0-9a-fA-F]{6})`).FindAllStringSubmatch(src, -1) {
		vars[m[1]] = m[2]
	}
	resolve := func(v string) (string, bool) {
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		if m := regexp.MustCompile(`^var\((--[a-z0-9-]+)\)$`).FindStringSubmatch(v); m != nil {
			v = vars[m[1]]
		}
		return v, regexp.MustCompile(`^#[0-9a-fA-F]{6}$`).MatchString(v)
	}
	surfaces := []string{"--bg", "--surface", "--surface-2"}
	n := 0
	for _, m := range regexp.MustCompile(`(?s)([^{}]+)\{([^{}]*)\}`).FindAllStringSubmatch(src, -1) {
		sel, body := strings.TrimSpace(m[1]), m[2]
		decl := map[string]string{}
		for _, d := range strings.Split(body, ";") {
			if k, v, ok := strings.Cut(d, ":"); ok {
				decl[strings.TrimSpace(k)] = v
			}
		}
		fg, ok := resolve(decl["color"])
		if !ok {
			continue
		}
		bgs := []string{}
		if bg, ok := resolve(cmpOr(decl["background"], decl["background-color"])); ok {
			bgs = append(bgs, bg)
		} else {
			for _, s := range surfaces {
				bgs = append(bgs, vars[s])
			}
		}
		for _, bg := range bgs {
			n++
			if r := contrast(fg, bg); r < 4.5 {
				t.Errorf("%s: %s on %s is %.2f:1, want ≥ 4.5:1", sel, fg, bg, r)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d colour pairs found: is the stylesheet read right?", n)
	}
	t.Logf("%d colour pairs", n)
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// contrast is WCAG's contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	var c [3]float64
	for i := range c {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			panic(fmt.Sprint(hex, err))
		}
		x := float64(v) / 255
		if x <= 0.03928 {
			c[i] = x / 12.92
		} else {
			c[i] = math.Pow((x+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}
