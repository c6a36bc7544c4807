package fleet

import (
	"bufio"
	"io"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultRollbackLog is where acbridge-upgrade-check records each
// rollback, one line "<unix time> <from> <to> <reason>" (the last 100).
const DefaultRollbackLog = "/var/lib/acbridge/rollback/rollbacks"

// maxRollbackLog bounds what a scrape reads: 100 lines of two Debian
// versions and a reason each fit many times over.
const maxRollbackLog = 64 << 10

var rollbacksDesc = prometheus.NewDesc("acbridge_rollbacks_total",
	"Upgrades that failed the health gate and were rolled back, by the version rolled back from, the version returned to and the gate's reason (not_ready, unstable, no_session, doctor).",
	[]string{"from", "to", "reason"}, nil)

// rollbacks reads the health gate's record at each scrape: the gate runs
// outside the daemon, and restarts it after a rollback.
type rollbacks struct{ path string }

func (r rollbacks) Describe(ch chan<- *prometheus.Desc) { ch <- rollbacksDesc }

func (r rollbacks) Collect(ch chan<- prometheus.Metric) {
	for k, n := range readRollbacks(r.path) {
		ch <- prometheus.MustNewConstMetric(rollbacksDesc, prometheus.CounterValue, n, k.from, k.to, k.reason)
	}
}

type rollbackKey struct{ from, to, reason string }

// readRollbacks counts the record's lines; a missing file is no rollback,
// and a line that is not four fields is skipped.
func readRollbacks(path string) map[rollbackKey]float64 {
	m := map[rollbackKey]float64{}
	f, err := os.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxRollbackLog))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			continue
		}
		m[rollbackKey{fs[1], fs[2], fs[3]}]++
	}
	return m
}
