package bridge

import (
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/notice"
)

// scanOptions make a tag that could not be read (pulled away mid-read) a
// notice and a count instead of the end of the scan: the reader stays
// armed until its window ends or CANCEL.
func (c *conv) scanOptions() *nfc.ScanOptions {
	return &nfc.ScanOptions{OnUnread: func(err error) {
		c.b.o.Metrics.unreadTap()
		c.b.log.Info("tag not read; the reader stays armed", "err", err)
		n := notice.Notice{Kind: notice.Armed, Control: button.Scan, Text: nfc.UnreadNotice}
		// The loop shows it; if it is behind, a repeat of the same words
		// is no loss.
		select {
		case c.notes <- n:
		default:
		}
	}}
}
