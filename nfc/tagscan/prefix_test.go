package tagscan

import (
	"errors"
	"testing"
	"time"
)

// The once-mode timeout says its window once, without the sentinel's own
// text after it, and still matches ErrNoTag.
func TestNoTagErrorSaysItOnce(t *testing.T) {
	err := noTagError(3 * time.Second)
	if err.Error() != "no tag tapped within 3s" || !errors.Is(err, ErrNoTag) {
		t.Errorf("%q, Is(ErrNoTag) %v", err, errors.Is(err, ErrNoTag))
	}
}
