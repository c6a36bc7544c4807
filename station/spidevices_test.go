package station

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The spidev nodes of a stand-in /dev are listed with their bus and chip
// select, and nothing else is.
func TestSPIPorts(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"spidev0.1", "spidev0.0", "spidev1.2", "spidev", "spidev0.0.bak", "ttyAMA0"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := spiPorts(context.Background(), dir)
	if err != nil || len(got) != 3 {
		t.Fatalf("spiPorts = %+v, %v", got, err)
	}
	if got[0].Name != filepath.Join(dir, "spidev0.0") || got[0].Attrs["chipSelect"] != 0 || got[2].Attrs["bus"] != 1 || got[2].Attrs["chipSelect"] != 2 {
		t.Errorf("spiPorts = %+v", got)
	}
}
