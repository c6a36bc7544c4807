package gpio

import (
	"errors"
	"strings"
	"testing"
)

// Errors with fixed texts name their package once: a chip that cannot be
// resolved is not wrapped in a second "button/gpio:".
func TestErrorsNameThePackageOnce(t *testing.T) {
	for _, err := range []error{
		requestError(Header, 99, errors.New(`button/gpio: chip "header": no chip labelled pinctrl-bcm2835; set chip to a name gpiodetect lists (chips here: none)`)),
		requestError("gpiochip0", 3, errors.New("some failure")),
	} {
		if n := strings.Count(err.Error(), "button/gpio:"); n != 1 {
			t.Errorf("%q names button/gpio %d times", err, n)
		}
	}
}
