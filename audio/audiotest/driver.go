package audiotest

import (
	"fmt"
	"sync"

	"github.com/agentcall/acbridge/audio"
	"github.com/pion/mediadevices/pkg/driver"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/prop"
)

// TestDriver returns mediadevices' audiotest microphone driver (the one
// audio.TestDevice selects). There is one per process, so one Mic at a
// time may use it.
func TestDriver() (driver.Driver, error) {
	for _, d := range driver.GetManager().Query(driver.FilterDeviceType(driver.Microphone)) {
		if d.Info().Label == audio.TestDevice {
			return d, nil
		}
	}
	return nil, fmt.Errorf("audiotest: mediadevices' audiotest driver is not registered")
}

// CountingDriver wraps a microphone driver and counts how often it is
// opened and closed. Pass it as audio.MicOptions.Driver.
type CountingDriver struct {
	driver.Driver
	rec driver.AudioRecorder

	mu            sync.Mutex
	opens, closes int
	open          bool
}

var _ driver.AudioRecorder = (*CountingDriver)(nil)

// Count wraps d, which must record audio.
func Count(d driver.Driver) (*CountingDriver, error) {
	rec, ok := d.(driver.AudioRecorder)
	if !ok {
		return nil, fmt.Errorf("audiotest: driver %q records no audio", d.Info().Label)
	}
	return &CountingDriver{Driver: d, rec: rec}, nil
}

// Open opens the wrapped driver and counts a success.
func (c *CountingDriver) Open() error {
	if err := c.Driver.Open(); err != nil {
		return err
	}
	c.mu.Lock()
	c.opens++
	c.open = true
	c.mu.Unlock()
	return nil
}

// Close closes the wrapped driver and counts every call.
func (c *CountingDriver) Close() error {
	c.mu.Lock()
	c.closes++
	c.open = false
	c.mu.Unlock()
	return c.Driver.Close()
}

// AudioRecord forwards to the wrapped driver.
func (c *CountingDriver) AudioRecord(p prop.Media) (mdaudio.Reader, error) {
	return c.rec.AudioRecord(p)
}

// Counts returns the number of successful opens and of closes, and
// whether the device is open now.
func (c *CountingDriver) Counts() (opens, closes int, open bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens, c.closes, c.open
}
