package setup

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// askAgent takes the agent's URL, the token and the keystore path.
func askAgent(o *Options, a *asker, p *plan) error {
	fmt.Fprintln(o.Out, "\nAgent")
	for try := 0; ; try++ {
		var u string
		if o.Answers != nil {
			u = o.Answers.AgentURL
			fmt.Fprintf(o.Out, "Agent URL: %s (from the answers)\n", u)
		} else {
			var err error
			if u, err = a.line("Agent URL (https://…, from the agent's operator): "); err != nil {
				return err
			}
		}
		err := setURL(&p.cfg, u)
		if err == nil {
			p.insecure = p.cfg.Agent.AllowInsecureLocal
			break
		}
		if o.Answers != nil {
			return fmt.Errorf("answers: agent_url: %w", err)
		}
		if try == 2 {
			return err
		}
		fmt.Fprintf(o.Out, "  %v\n", err)
	}

	if o.Answers != nil {
		if path := o.Answers.TokenFile; path != "" {
			if err := keystore.CheckToken(path); err != nil {
				return fmt.Errorf("answers: token_file: %w", err)
			}
			p.cfg.Agent.TokenFile = path
			fmt.Fprintf(o.Out, "Agent token: in %s (from the answers)\n", path)
		}
	} else {
		tok, err := a.secret("Agent token (not shown as you type; Enter if the agent needs none): ")
		if err != nil {
			return err
		}
		if tok != "" {
			p.token = []byte(tok)
			p.cfg.Agent.TokenFile = o.TokenPath
			fmt.Fprintf(o.Out, "Agent token: will be stored in %s (mode 0600)\n", o.TokenPath)
		}
	}
	if o.Answers != nil && o.Answers.Keystore != "" {
		p.cfg.Keystore.Path = o.Answers.Keystore
	}
	return nil
}

// setURL sets agent.url, allowing plain http only to a loopback agent (a
// development agent on this machine), as agent.allow_insecure_local does.
func setURL(cfg *config.Config, raw string) error {
	if raw == "" {
		return errors.New("the agent URL is required (like https://agent.example)")
	}
	cfg.Agent.URL = raw
	cfg.Agent.AllowInsecureLocal = false
	if u, err := url.Parse(raw); err == nil && u.Scheme == "http" {
		if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
			cfg.Agent.AllowInsecureLocal = true
		}
	}
	err := cfg.Validate()
	var probs config.Problems
	if errors.As(err, &probs) {
		for _, pr := range probs {
			if strings.HasPrefix(pr, "agent.url") {
				return errors.New(pr)
			}
		}
		return nil // the rest is checked on the whole file before writing
	}
	if err != nil && strings.Contains(err.Error(), "agent.url") {
		return err
	}
	return nil
}
