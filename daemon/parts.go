package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/fleet"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/connlimit"
	"github.com/agentcall/acbridge/internal/journallog"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/station"
	"github.com/prometheus/client_golang/prometheus"
)

// maxMetricsConns bounds the metrics endpoint's connections: a Prometheus
// or two and a person with curl. Each costs tens of KiB, and a local
// process could otherwise open thousands (connlimit keeps the scrape
// working when they are idle).
const maxMetricsConns = 16

// Parts are the opened devices and services of one daemon generation (a
// SIGHUP builds a new generation), from which the bridge is assembled.
type Parts struct {
	// Station is the kiosk's hardware as the configuration and
	// BuildOptions.Devices make it.
	Station *station.Station
	// Health holds the problems current now: the bridge sets and clears
	// them, the status line and the kiosk page read them.
	Health *health.Tracker

	cfg     *config.Config
	log     *slog.Logger
	metrics *bridge.Metrics
	metSrv  *http.Server
	token   string
	policy  *client.Policy
	ice     []client.ICEServer
	closers []func() error
	wg      sync.WaitGroup
}

// BuildOptions are what Build needs besides the configuration. The zero
// value builds the kiosk `acbridge run` builds without standard input,
// logging nowhere.
type BuildOptions struct {
	Logger *slog.Logger // nil: discard
	// Stdin is read by terminal buttons; Stdout is told when text typed
	// there is no button's key (nil: discard).
	Stdin  io.Reader
	Stdout io.Writer
	// Lines, if not nil, are standard input's lines sent as typed turns
	// (run --stdin-text).
	Lines <-chan string
	// Version labels the fleet metrics.
	Version string
	// Devices replace configured devices: a simulated kiosk's (package
	// station/sim) for the demo and the simulated acceptance. Nil: every
	// device is opened from the configuration.
	Devices *station.Overrides
}

// NewLogger builds the daemon's logger; levels and formats come validated
// from config.
func NewLogger(c config.Log, w io.Writer) *slog.Logger {
	return newLogger(c, w, new(slog.LevelVar))
}

// newLogger is NewLogger with its level in lv, so that a reload can change
// it in place.
func newLogger(c config.Log, w io.Writer, lv *slog.LevelVar) *slog.Logger {
	lv.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	// Rate-limited whatever an agent makes the daemon say, so that it stays
	// far below journald's per-unit limit; the audit log is not (see
	// AuditLogger).
	return slog.New(journallog.Limit(h, nil))
}

// Build opens the token, this kiosk's hardware (station.Open: absent
// devices are no error, configuration that cannot work is) and the metrics
// endpoint: the one way from a configuration to the bridge's parts, for
// `acbridge run` and the demo alike (the simulated acceptance opens its
// devices one step at a time, with the same Overrides). Close releases
// them.
func Build(ctx context.Context, cfg *config.Config, o *BuildOptions) (*Parts, error) {
	var bo BuildOptions
	if o != nil {
		bo = *o
	}
	if bo.Logger == nil {
		bo.Logger = slog.New(slog.DiscardHandler)
	}
	if bo.Stdout == nil {
		bo.Stdout = io.Discard
	}
	log := bo.Logger
	p := &Parts{cfg: cfg, log: log, Health: &health.Tracker{}}
	fail := func(err error) (*Parts, error) {
		p.Close()
		return nil, err
	}
	pol, err := AgentPolicy(&cfg.Agent)
	if err != nil {
		return fail(err)
	}
	p.policy = pol
	if cfg.Agent.TokenFile != "" {
		if err := keystore.CheckToken(cfg.Agent.TokenFile); err != nil {
			return fail(fmt.Errorf("agent.token_file %w", err))
		}
		tok, err := keystore.LoadToken(cfg.Agent.TokenFile)
		if err != nil {
			return fail(fmt.Errorf("agent.token_file: %w", err))
		}
		p.token = tok
	}
	if p.ice, err = iceServers(&cfg.Agent); err != nil {
		return fail(err)
	}
	so := &station.Options{Logger: log, Stdin: bo.Stdin, Lines: bo.Lines, Devices: bo.Devices, Health: p.Health}
	if bo.Lines == nil {
		// Terminal buttons read standard input as keys: a sentence typed
		// to them would otherwise vanish without a word.
		so.Unbound = func(keys string) { fmt.Fprintf(bo.Stdout, TypedTextKeysOnly+"\n", keys) }
	}
	st, err := station.Open(ctx, cfg, so)
	if err != nil {
		return fail(err)
	}
	p.Station = st
	p.closers = append(p.closers, st.Close)
	if cfg.Metrics.Listen != "" {
		p.metrics = bridge.NewMetrics()
		if err := p.metrics.Register(fleetCollectors(cfg, p, bo.Version)...); err != nil {
			return fail(fmt.Errorf("metrics: %w", err))
		}
		ln, err := net.Listen("tcp", cfg.Metrics.Listen)
		if err != nil {
			return fail(fmt.Errorf("metrics: %w", err))
		}
		log.Info("metrics", "listen", ln.Addr().String())
		mux := http.NewServeMux()
		mux.Handle("/metrics", p.metrics.Handler())
		p.metSrv = &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       cfg.Metrics.IdleTimeout.Duration,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		}
		ln = connlimit.Serve(p.metSrv, ln, maxMetricsConns)
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.metSrv.Serve(ln) }()
		p.closers = append(p.closers, p.metSrv.Close)
	}
	return p, nil
}

// Close releases every part in reverse order and waits for their
// goroutines. Safe to call twice.
func (p *Parts) Close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
	p.wg.Wait()
}

// Bridge assembles the bridge's options from the parts: the agent, the
// devices and the session's rules come from Build's configuration through
// station, as for every caller; out and onState are the caller's
// (bridge.Options.Out and OnState).
func (p *Parts) Bridge(out io.Writer, onState func(bridge.State)) bridge.Options {
	cfg := p.cfg
	o := bridge.Options{
		Agent: bridge.Agent{
			URL:        cfg.Agent.URL,
			Token:      p.token,
			Network:    p.policy,
			ICEServers: p.ice,
			RelayOnly:  cfg.Agent.ICETransport == config.ICETransportRelay,
		},
		Devices: p.Station.Devices(),
		Policy:  station.Policy(cfg),
		Texts:   p.Station.Texts,
		Out:     out,
		Logger:  p.log,
		Audit:   AuditLogger(p.log),
		Metrics: p.metrics,
		Health:  p.Health,
		OnState: onState,
	}
	if k := p.Station.Kiosk; k != nil {
		o.Display, o.SentRef, o.Context = k.Display, k.Mask, k.Context
	}
	return o
}

// AuditLogger writes the privacy audit to the journal with one field per
// attribute when running under systemd, and to the daemon's log otherwise;
// either way past the daemon log's rate limit. Audit lines are never
// dropped: they are one per observation sent (a physical action each), the
// rest of the daemon's log is limited to a fraction of journald's per-unit
// budget, and the unit turns journald's rate limit off for the service
// (LogRateLimitIntervalSec=0 in acbridge.service).
func AuditLogger(log *slog.Logger) *slog.Logger {
	if journallog.Available() {
		return slog.New(journallog.New(slog.LevelInfo)).With("log", "audit")
	}
	h := log.Handler()
	if l, ok := h.(*journallog.LimitHandler); ok {
		h = l.Unlimited()
	}
	return slog.New(h).With("log", "audit")
}

// fleetCollectors labels this kiosk's metrics for a fleet-wide Prometheus
// (docs/fleet.md), with the devices that build opened.
func fleetCollectors(cfg *config.Config, p *Parts, version string) []prometheus.Collector {
	info := &fleet.Info{KioskID: cfg.Metrics.KioskID, Version: version}
	// build has created the keystore when nfc is enabled; without nfc
	// there may be none, and the label says so.
	if ks, err := keystore.Open(cfg.Keystore.Path); err == nil {
		info.KeystoreFingerprint = ks.Fingerprint()
	}
	if r := p.Station.Reader; r != nil {
		info.Reader = func() bool { return r.Status().State != nfc.StateNoReader }
	}
	if cam := p.Station.Photo; cam != nil {
		info.Camera = cam.Present
	}
	return fleet.Collectors(info)
}
