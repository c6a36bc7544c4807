package kiosk

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
)

// A press the bridge refused (no session) is answered on the page too: a
// person pressing the on-screen control sees why nothing happens, in the
// visitor's words (the bridge's are the operator's).
func TestRefusedPressIsShown(t *testing.T) {
	var s state
	s.apply(notice.Notice{Kind: notice.Refused, Control: button.Photo, Text: notice.NotConnected}, time.Now())
	v := s.view()
	if len(v.Entries) != 1 || v.Entries[0].Text != "Not ready yet. Press again when it says Ready." {
		t.Errorf("entries %+v, want the refusal", v.Entries)
	}
}
