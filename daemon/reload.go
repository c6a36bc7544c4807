package daemon

import (
	"log/slog"
	"reflect"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// sessionNeutral are the settings a reload applies without reopening the
// devices or starting a new agent session (docs/install-by-hand.md,
// "Reloading"): nothing in the running session reads them.
var sessionNeutral = []struct {
	key string
	// get returns the setting (a comparable value); blank clears it.
	get   func(*config.Config) any
	blank func(*config.Config)
	apply func(g *generation, next *config.Config)
}{
	{"log.level", func(c *config.Config) any { return c.Log.Level }, func(c *config.Config) { c.Log.Level = "" },
		func(g *generation, next *config.Config) { g.level.UnmarshalText([]byte(next.Log.Level)) }},
	// Only `acbridge provision` acts on the release ring.
	{"update.channel", func(c *config.Config) any { return c.Update }, func(c *config.Config) { c.Update = config.Update{} },
		func(*generation, *config.Config) {}},
}

// generation is the part of a running daemon generation a reload may
// change in place.
type generation struct {
	cfg   *config.Config
	level *slog.LevelVar
	token string
	// missing reports whether a configured device is still absent: a
	// reload then reopens the devices whatever changed.
	missing func() bool
}

// keep applies next in place, returning the keys it changed, when next
// differs from the running configuration only in sessionNeutral settings
// and the token file still holds the running token. An unchanged
// configuration is not kept: a reload with nothing edited is how a
// technician makes the daemon look for its devices again.
func (g *generation) keep(next *config.Config) (changed []string, ok bool) {
	if g.missing != nil && g.missing() {
		return nil, false
	}
	if next.Agent.TokenFile != "" {
		tok, err := keystore.LoadToken(next.Agent.TokenFile)
		if err != nil || tok != g.token {
			return nil, false
		}
	}
	a, b := *g.cfg, *next
	for _, s := range sessionNeutral {
		if !reflect.DeepEqual(s.get(&a), s.get(&b)) {
			changed = append(changed, s.key)
		}
		s.blank(&a)
		s.blank(&b)
	}
	if len(changed) == 0 || !reflect.DeepEqual(a, b) {
		return nil, false
	}
	for _, s := range sessionNeutral {
		s.apply(g, next)
	}
	g.cfg = next
	return changed, true
}
