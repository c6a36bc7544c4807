package station

import (
	"errors"
	"log/slog"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// openKeystore opens the device secret, creating it on first start unless
// its directory is lost at reboot: a secret made anew at
// every boot would silently change every tag alias. The fingerprint is
// logged at every start, so that a changed secret shows in the journal as
// it does in the acbridge_kiosk_info metric.
func openKeystore(cfg *config.Config, log *slog.Logger) (*keystore.Store, error) {
	path := cfg.Keystore.Path
	ks, err := keystore.Open(path)
	if errors.Is(err, keystore.ErrNotExist) {
		if perr := keystore.CheckPersistent(path, ""); perr != nil {
			if !cfg.Keystore.AllowVolatile {
				return nil, perr
			}
			log.Warn("keystore on a volatile filesystem (keystore.allow_volatile): every tag alias changes at reboot", "why", perr)
		}
		ks, err = keystore.OpenOrCreate(path)
		if err == nil {
			log.Info("keystore created", "path", path)
		}
	} else if err == nil {
		if perr := keystore.CheckPersistent(path, ""); perr != nil {
			log.Warn("the keystore will be lost at reboot", "why", perr)
		}
	}
	if err != nil {
		return nil, err
	}
	log.Info("keystore", "path", path, "epoch", ks.Epoch(), "fingerprint", ks.Fingerprint())
	return ks, nil
}
