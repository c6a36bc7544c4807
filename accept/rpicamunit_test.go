package accept

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped unit passes the check; one without the lines fails it until
// a drop-in adds them; no installed unit is not checked.
func TestUnitDeviceGaps(t *testing.T) {
	shipped := filepath.Join("..", "systemd", "acbridge.service")
	if unit, missing, err := unitDeviceGaps([]string{shipped}); err != nil || unit != shipped || len(missing) != 0 {
		t.Fatalf("shipped unit: %q %q %v", unit, missing, err)
	}
	b, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "char-media") && !strings.Contains(l, "char-dma_heap") {
			kept = append(kept, l)
		}
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "acbridge.service")
	if err := os.WriteFile(old, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, missing, err := unitDeviceGaps([]string{filepath.Join(dir, "absent.service"), old})
	if err != nil || strings.Join(missing, "; ") != "DeviceAllow=char-dma_heap rw; DeviceAllow=char-media rw" {
		t.Fatalf("unit without the lines: %q %v", missing, err)
	}
	if err := os.Mkdir(old+".d", 0o755); err != nil {
		t.Fatal(err)
	}
	dropin := "[Service]\nDeviceAllow=char-media rw\nDeviceAllow=/dev/dma_heap/linux,cma rw\n"
	if err := os.WriteFile(filepath.Join(old+".d", "rpicam.conf"), []byte(dropin), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, missing, err := unitDeviceGaps([]string{old}); err != nil || len(missing) != 0 {
		t.Fatalf("with the drop-in: %q %v", missing, err)
	}
	if unit, _, err := unitDeviceGaps([]string{filepath.Join(dir, "absent.service")}); unit != "" || err != nil {
		t.Fatalf("no unit: %q %v", unit, err)
	}
	open := filepath.Join(dir, "open.service")
	if err := os.WriteFile(open, []byte("[Service]\nExecStart=/usr/bin/acbridge run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, missing, err := unitDeviceGaps([]string{open}); err != nil || len(missing) != 0 {
		t.Fatalf("a unit without a device policy: %q %v", missing, err)
	}
}
