package station

import (
	"context"
	"log/slog"

	"github.com/agentcall/acbridge/button"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/kiosk"
)

// kioskOptions are the kiosk page's options from the configuration's
// [kiosk] section.
func kioskOptions(cfg *config.Config, browser string, log *slog.Logger) *kiosk.Options {
	k := cfg.Kiosk
	return &kiosk.Options{
		Listen: k.Listen, TextBox: k.TextBox, BrowserUser: browser, Logger: log,
		Title: k.Title, Purpose: k.Purpose, Languages: k.Languages, Language: k.Language,
		Speech: k.Speech == "on-request", SpeechCommand: cfg.Audio.TTSCommand,
	}
}

// observed shows every button event to the kiosk page as it passes to the
// bridge: a long press turns the page's speech mode on.
type observed struct {
	button.Source
	see func(button.Event)
}

func (o observed) Read(ctx context.Context) (button.Event, error) {
	ev, err := o.Source.Read(ctx)
	if err == nil {
		o.see(ev)
	}
	return ev, err
}
