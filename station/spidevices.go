package station

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentcall/acbridge/nfc/rc522"
)

// listSPIPorts lists the spidev nodes an RC522 board can be on
// (nfc.driver = "rc522", nfc.spi_device = the name); none until SPI is
// enabled (dtparam=spi=on).
func listSPIPorts(ctx context.Context) ([]Device, error) {
	return spiPorts(ctx, "/dev")
}

func spiPorts(ctx context.Context, dev string) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dev)
	if err != nil {
		return nil, err
	}
	out := []Device{}
	for _, e := range ents {
		// Names are matched as /dev/ ones, whatever dev is (tests).
		b, cs, err := rc522.ParseDevice("/dev/" + e.Name())
		if err != nil {
			continue
		}
		out = append(out, Device{Name: filepath.Join(dev, e.Name()), Attrs: map[string]any{"bus": b, "chipSelect": cs}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
