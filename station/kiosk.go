package station

import (
	"log/slog"

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
