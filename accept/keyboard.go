package accept

import (
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
	"github.com/agentcall/acbridge/station"
)

// openKeyboard opens the keyboard-style reader nfc.device names; it is
// ready as soon as it is open and grabbed.
func (g *rig) openKeyboard() (nfc.Reader, error) {
	ks, _, err := g.aliaser()
	if err != nil {
		return nil, err
	}
	kb, err := keyboard.Open(&keyboard.Options{Path: g.cfg.NFC.Device, Aliaser: station.WithReferences(g.cfg.NFC, ks, g.log), Scope: g.scope(), Logger: g.log})
	if err != nil {
		return nil, err
	}
	g.kb = kb
	g.ident.Reader = kb.Status().Reader
	return kb, nil
}
