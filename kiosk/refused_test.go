package kiosk

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
)

// A press the bridge refused (no session) is answered on the page too: a
// person pressing the on-screen control sees why nothing happens.
func TestRefusedPressIsShown(t *testing.T) {
	var s state
	s.apply(notice.Notice{Kind: notice.Refused, Control: button.Photo, Text: notice.NotConnected}, time.Now())
	v := s.view()
	if len(v.Entries) != 1 || v.Entries[0].Text != notice.NotConnected {
		t.Errorf("entries %+v, want the refusal", v.Entries)
	}
}
