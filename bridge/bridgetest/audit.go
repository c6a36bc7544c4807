package bridgetest

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// AuditedPackets waits until log (the bridge's log in slog's text form)
// holds n audit lines of a microphone turn or engagement (mode "turn" or
// "engagement") and returns the packets the n-th counts: what the bridge
// sent while that microphone was open. An agent has heard them all once the
// last in flight has arrived, which a test can wait for instead of sleeping.
func AuditedPackets(ctx context.Context, log *Transcript, mode string, n int) (int, error) {
	re := regexp.MustCompile(`audit=microphone\.` + regexp.QuoteMeta(mode) + ` .*packets=(\d+)`)
	var lines [][]string
	err := log.WaitText(ctx, func(text string) bool {
		lines = re.FindAllStringSubmatch(text, -1)
		return len(lines) >= n
	})
	if err != nil {
		return 0, fmt.Errorf("%d audit lines of a microphone %s counting packets, want %d: %w", len(lines), mode, n, err)
	}
	return strconv.Atoi(lines[n-1][1])
}
