package accept

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentcall/acbridge/kiosk"
)

// The kiosk screen's set-up as the package installs it (docs/kiosk.md),
// relative to Options.KioskRoot.
const (
	kioskDefaults = "etc/default/acbridge-kiosk"
	kioskWants    = "etc/systemd/system/*.wants/acbridge-kiosk.service"
)

// envKiosk checks that an enabled kiosk screen (acbridge-kiosk.service)
// opens the page this configuration serves. Otherwise the screen stays
// black while it waits for a page on another port, and only its own log
// says why. A kiosk without the screen enabled has nothing to check.
func (r *runner) envKiosk(_ context.Context, t *T) error {
	root := r.o.KioskRoot
	if root == "" {
		root = "/"
	}
	b, err := os.ReadFile(filepath.Join(root, kioskDefaults))
	if errors.Is(err, fs.ErrNotExist) {
		t.note("the kiosk screen (acbridge-kiosk.service) is not installed")
		return nil
	}
	if err != nil {
		return failErr(err, "")
	}
	if links, _ := filepath.Glob(filepath.Join(root, kioskWants)); len(links) == 0 {
		t.note("the kiosk screen (acbridge-kiosk.service) is not enabled; docs/kiosk.md turns it on")
		return nil
	}
	listen := r.cfg.Kiosk.Listen
	if listen == "" {
		return failf(`set [kiosk] listen = "127.0.0.1:8080" in the configuration (the address in ACBRIDGE_KIOSK_URL, /etc/default/acbridge-kiosk), `+
			"or turn the screen off: systemctl disable --now acbridge-kiosk",
			"acbridge-kiosk.service is enabled, but the kiosk page is off (kiosk.listen is empty): the screen waits for a page that never comes")
	}
	want := "http://" + listen + "/"
	got := envFileValue(b, "ACBRIDGE_KIOSK_URL")
	if !samePage(got, listen) {
		return failf(fmt.Sprintf("set ACBRIDGE_KIOSK_URL=%s in /etc/default/acbridge-kiosk, then systemctl restart acbridge-kiosk", want),
			"the kiosk screen opens %s, but acbridge serves the page at %s", describePageURL(got), want)
	}
	t.note("the kiosk screen opens the page at %s", want)
	return nil
}

// envFileValue is key's value in an EnvironmentFile= (the last assignment
// wins, as in systemd), without surrounding quotes.
func envFileValue(b []byte, key string) string {
	var v string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == key {
			v = strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	return v
}

// samePage reports whether pageURL is the page served on listen. The
// server answers under its address and under localhost, so either host
// name is the same page.
func samePage(pageURL, listen string) bool {
	got, err := kiosk.PageAddr(pageURL)
	if err != nil {
		return false
	}
	want, err := kiosk.PageAddr("http://" + listen + "/")
	return err == nil && got == want
}

// describePageURL names what the screen opens without repeating more of
// the file than its address: a URL pasted there may carry anything.
func describePageURL(pageURL string) string {
	if pageURL == "" {
		return "no page (ACBRIDGE_KIOSK_URL is empty)"
	}
	if u, err := url.Parse(pageURL); err == nil && u.Host != "" {
		rest := "/"
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			rest = "/…"
		}
		return fmt.Sprintf("%s://%s%s", clip(u.Scheme, 16), clip(u.Host, 64), rest)
	}
	return "something that is not a page URL"
}
