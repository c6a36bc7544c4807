package accept

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/daemon"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/protocol"
)

const agentTimeout = 20 * time.Second

func (r *runner) agentSteps() []*step {
	return []*step{
		{id: "agent.card", group: GroupAgent, title: "the agent card is fetched and fits this kiosk's modalities", timeout: agentTimeout, run: r.agentCard},
		{id: "agent.session", group: GroupAgent, title: "a session is established", timeout: agentTimeout, run: r.agentSession},
		{id: "agent.text", group: GroupAgent, title: "a text turn is answered", timeout: agentTimeout, run: r.agentText},
		{id: "agent.observation", group: GroupAgent, title: "an observation is accepted", timeout: agentTimeout, run: r.agentObservation},
		{id: "agent.replay", group: GroupAgent, title: "the conformance walkthrough replays against the agent (--replay)", timeout: 2 * time.Minute, run: r.agentReplay},
	}
}

func (r *runner) agentDownFix() string {
	return strings.ReplaceAll(client.WarnUnreachable.Fix, "AGENT_URL", strings.TrimSuffix(r.cfg.Agent.URL, "/"))
}

// discover fetches the card once per run.
func (r *runner) discover(ctx context.Context) (*client.Discovered, error) {
	return r.rig.agent.get(func() (*client.Discovered, error) { return r.doDiscover(ctx) })
}

func (r *runner) doDiscover(ctx context.Context) (*client.Discovered, error) {
	c := r.cfg.Agent
	if c.URL == "" {
		return nil, failf("set agent.url in the configuration (see env.config)", "no agent is configured (agent.url)")
	}
	token := ""
	if c.TokenFile != "" {
		tok, err := keystore.LoadToken(c.TokenFile)
		if err != nil {
			return nil, failErr(err, "agent.token_file must be a one-line file of mode 0600 readable by the service user")
		}
		token = tok
	}
	pol, err := daemon.AgentPolicy(&c)
	if err != nil {
		return nil, failErr(err, "agent.ca_file must name the PEM certificate of the CA that signed the agent's certificate, readable by the service user")
	}
	start := time.Now()
	ag, err := client.Discover(ctx, c.URL, token, pol)
	if err != nil {
		return nil, err
	}
	r.rig.agIn = time.Since(start)
	r.report.Device.Agent = ag.Origin
	return ag, nil
}

func (r *runner) agentFail(err error) error {
	var o *outcome
	switch {
	case errors.As(err, &o):
		return err
	case errors.Is(err, client.ErrPolicy):
		return failErr(err, client.WarnPolicy.Fix)
	case errors.Is(err, client.ErrIncompatible):
		return failErr(err, client.WarnCard.Fix)
	}
	return failErr(err, r.agentDownFix())
}

// modalities are the physical inputs this kiosk offers: the enabled ones.
func (r *runner) modalities() []protocol.Modality {
	var out []protocol.Modality
	for _, m := range r.cfg.Modalities.Enabled {
		out = append(out, protocol.Modality(m))
	}
	return out
}

func (r *runner) agentCard(ctx context.Context, t *T) error {
	ag, err := r.discover(ctx)
	if err != nil {
		return r.agentFail(err)
	}
	t.measureDur("cardFetch", r.rig.agIn)
	p := ag.Card.Params
	t.note("agent %s, transport %s, voice owner %s", ag.Origin, p.AGUI.Transport, p.Voice.Owner)
	var missing []string
	for _, m := range r.modalities() {
		if !ag.Card.Accepts(m) {
			missing = append(missing, string(m))
		}
	}
	if len(missing) > 0 {
		return failf("remove them from modalities.enabled, or have the agent's operator accept them (physicalObservations.accepted in the card)",
			"the agent's card does not accept %s, which this kiosk enables (it accepts: %s)", strings.Join(missing, ", "), modList(p.PhysicalObservations.Accepted))
	}
	t.note("the card accepts %s and may request %s", modList(p.PhysicalObservations.Accepted), modList(p.PhysicalObservations.AgentRequests))
	return nil
}

func modList(ms []protocol.Modality) string {
	if len(ms) == 0 {
		return "nothing"
	}
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// session starts one session for the text and observation steps.
func (r *runner) session(ctx context.Context) (*client.Session, error) {
	return r.rig.sess.get(func() (*client.Session, error) {
		ag, err := r.discover(ctx)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		tr, err := ag.Dial(ctx)
		var s *client.Session
		if err == nil {
			s, err = client.Start(ctx, tr, ag.Card, &client.Options{Modalities: r.modalities(), Logger: r.o.Logger})
		}
		r.rig.sessIn = time.Since(start)
		return s, err
	})
}

func (r *runner) agentSession(ctx context.Context, t *T) error {
	if _, err := r.discover(ctx); err != nil {
		return t.needs(r.agentFail(err), "agent.card", "no agent card")
	}
	s, err := r.session(ctx)
	if err != nil {
		return r.agentFail(err)
	}
	t.measureDur("established", r.rig.sessIn)
	t.note("negotiated modalities: %s", modList(s.Negotiated()))
	return nil
}

// awaitRun reads the session's events until the run a turn started
// completes; a failure event fails the step with the agent's code.
func awaitRun(ctx context.Context, s *client.Session, t *T, what string) error {
	start := time.Now()
	texts := 0
	for {
		select {
		case env, ok := <-s.Events():
			if !ok {
				return fmt.Errorf("the session ended while waiting for the answer: %w", s.Err())
			}
			switch env.Event.Type {
			case protocol.EventFailure:
				return failf("give this report to the agent's operator: the agent refused a message that passed acbridge's own 0.1 checks",
					"the agent answered the %s with failure %s: %s", what, clip(env.Event.Code, 64), clip(env.Event.Message, 200))
			case protocol.EventTextDelta:
				if texts == 0 {
					t.measureDur("firstText", time.Since(start))
				}
				texts++
			case protocol.EventRunCompleted:
				t.measureDur("answered", time.Since(start))
				if texts == 0 {
					t.note("the run completed without text")
				}
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *runner) agentText(ctx context.Context, t *T) error {
	s, err := r.session(ctx)
	if err != nil {
		return t.needs(r.agentFail(err), "agent.session", "no session")
	}
	if _, err := s.Say(ctx, "Hello, this is the kiosk's acceptance check."); err != nil {
		return r.agentFail(err)
	}
	return awaitRun(ctx, s, t, "text turn")
}

func (r *runner) agentObservation(ctx context.Context, t *T) error {
	s, err := r.session(ctx)
	if err != nil {
		return t.needs(r.agentFail(err), "agent.session", "no session")
	}
	neg := s.Negotiated()
	if !containsMod(neg, protocol.NFC) {
		return skipf("the session negotiated no nfc modality to observe with (negotiated: %s)", modList(neg))
	}
	obj, note, err := r.probeObject()
	if err != nil {
		return failErr(err, "")
	}
	if note != "" {
		t.note("%s", note)
	}
	obs := &protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: "accept-1",
		CapturedAt: r.o.Now().UTC().Format(time.RFC3339), Intent: r.cfg.NFC.Intent, Object: obj}
	if _, err := s.Observe(ctx, obs, ""); err != nil {
		return r.agentFail(err)
	}
	return awaitRun(ctx, s, t, "observation")
}

func containsMod(ms []protocol.Modality, m protocol.Modality) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// probeObject is tag 1's object when the NFC steps read it, else the alias
// of a random identifier made up here and forgotten at once.
func (r *runner) probeObject() (*protocol.Object, string, error) {
	if o := r.rig.tags[0]; o != nil {
		return o, "sent tag 1's object", nil
	}
	ks, _, err := r.rig.aliaser()
	if err != nil {
		return nil, "", err
	}
	uid := make([]byte, 7)
	_, _ = rand.Read(uid)
	uid[0] = 0x04
	obj := ks.Object(r.rig.scope(), uid)
	clear(uid)
	return &obj, "tag 1 was not read in this run: sent the alias of a made-up identifier", nil
}

func (r *runner) agentReplay(ctx context.Context, t *T) error {
	if !r.o.Replay {
		return skipf("not requested (acbridge accept --replay runs it)")
	}
	ag, err := r.discover(ctx)
	if err != nil {
		return t.needs(r.agentFail(err), "agent.card", "no agent card")
	}
	steps, err := conformance.ParseTrace(conformance.PublicFixtures)
	if err != nil {
		return err
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		return r.agentFail(err)
	}
	rep := conformance.Replay(ctx, tr, ag.Card, steps, nil)
	t.measure("steps", float64(rep.Steps), "")
	t.measure("matched", float64(rep.Checked), "")
	if !rep.Passed {
		reason := "the agent diverged from the walkthrough"
		if rep.Divergence != nil {
			reason += " at " + rep.Divergence.String()
		}
		return failf("give this report to the agent's operator; `acbridge replay --agent URL` shows the same from a laptop", "%s", reason)
	}
	return nil
}
