package accept

import (
	"context"

	"github.com/agentcall/acbridge/power"
)

// envPower reads the Raspberry Pi firmware's under-voltage and throttling
// state: a sagging supply makes the reader and camera drop out, which
// looks like a device fault in every later step. Other machines have no
// such state and skip.
func (r *runner) envPower(ctx context.Context, t *T) error {
	s, ok, err := power.Read(ctx, r.o.Power)
	switch {
	case err != nil:
		return failErr(err, "")
	case !ok:
		return skipf("no Raspberry Pi firmware power state here (not a Raspberry Pi)")
	}
	t.note("firmware throttling state %s", s)
	switch {
	case s.UnderVoltage():
		return failf(power.WarnUnderVoltage.Fix, "under-voltage now: %s", power.WarnUnderVoltage.Text)
	case s.UnderVoltageSinceBoot():
		return failf(power.WarnUnderVoltage.Fix, "under-voltage since boot: %s", power.WarnUnderVoltage.Text)
	case s.Throttled(), s.ThrottledSinceBoot():
		return failf(power.WarnThrottled.Fix, "%s", power.WarnThrottled.Text)
	}
	return nil
}
