package bridge

import "github.com/prometheus/client_golang/prometheus"

// Register adds collectors made elsewhere (the fleet labels, package fleet)
// to the daemon's registry. A nil *Metrics registers nothing.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	if m == nil {
		return nil
	}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
