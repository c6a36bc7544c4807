package gpio

import (
	"fmt"
	"strings"
	"time"

	"github.com/warthog618/go-gpiocdev"
)

// Bias is a line's internal resistor.
type Bias int

const (
	// BiasAsIs leaves the bias as the board or device tree configured it.
	BiasAsIs Bias = iota
	BiasPullUp
	BiasPullDown
	BiasDisabled
)

// ParseBias reads "pull-up", "pull-down", "disabled", or "as-is" (also "").
func ParseBias(s string) (Bias, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "as-is":
		return BiasAsIs, nil
	case "pull-up":
		return BiasPullUp, nil
	case "pull-down":
		return BiasPullDown, nil
	case "disabled":
		return BiasDisabled, nil
	}
	return 0, fmt.Errorf("button/gpio: unknown bias %q (want pull-up, pull-down, disabled or as-is)", truncate(s))
}

func (b Bias) String() string {
	switch b {
	case BiasAsIs:
		return "as-is"
	case BiasPullUp:
		return "pull-up"
	case BiasPullDown:
		return "pull-down"
	case BiasDisabled:
		return "disabled"
	}
	return fmt.Sprintf("Bias(%d)", int(b))
}

// DefaultConsumer labels the lines acbridge holds, as gpioinfo shows them.
const DefaultConsumer = "acbridge"

// inputOptions translates a button line into go-gpiocdev request options,
// without the event handler (a func, which tests cannot compare).
func inputOptions(l Line, consumer string) ([]gpiocdev.LineReqOption, error) {
	opts := []gpiocdev.LineReqOption{gpiocdev.WithConsumer(consumer)}
	if l.ActiveLow {
		opts = append(opts, gpiocdev.AsActiveLow)
	}
	switch l.Bias {
	case BiasAsIs:
	case BiasPullUp:
		opts = append(opts, gpiocdev.WithPullUp)
	case BiasPullDown:
		opts = append(opts, gpiocdev.WithPullDown)
	case BiasDisabled:
		opts = append(opts, gpiocdev.WithBiasDisabled)
	default:
		return nil, fmt.Errorf("button/gpio: line %d: unknown bias %d", l.Offset, int(l.Bias))
	}
	opts = append(opts, gpiocdev.WithBothEdges)
	switch {
	case l.KernelDebounce < 0:
		return nil, fmt.Errorf("button/gpio: line %d: negative kernel debounce %v", l.Offset, l.KernelDebounce)
	case l.KernelDebounce > time.Second:
		return nil, fmt.Errorf("button/gpio: line %d: kernel debounce %v is above 1s: a press would go unseen", l.Offset, l.KernelDebounce)
	case l.KernelDebounce > 0:
		opts = append(opts, gpiocdev.WithDebounce(l.KernelDebounce))
	}
	return opts, nil
}

// outputOptions translates the LED line: an output, initially inactive.
func outputOptions(o *IndicatorOptions, consumer string) []gpiocdev.LineReqOption {
	opts := []gpiocdev.LineReqOption{gpiocdev.WithConsumer(consumer)}
	if o.ActiveLow {
		opts = append(opts, gpiocdev.AsActiveLow)
	}
	return append(opts, gpiocdev.AsOutput(0))
}

func truncate(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
