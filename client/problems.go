package client

import "github.com/agentcall/acbridge/health"

// The agent's problems. The first three no retry fixes: the kiosk keeps
// retrying at its slowest pace, and says so once (Lasting).
var (
	WarnNetwork = health.Register(&health.Warnable{Code: "agent.network", Text: "the network policy refuses the agent's address",
		Fix:    "agent.url must name an agent at a public address; for an agent on the premises, list its private network in agent.allow_networks (like [\"10.20.0.0/16\"]) and reach it over https; loopback is for local development only (agent.allow_insecure_local)",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
	WarnCertAuthority = health.Register(&health.Warnable{Code: "agent.ca", Text: "the agent's TLS certificate is not signed by a certificate authority this kiosk trusts",
		Fix:    "if the agent's certificate comes from a private CA, give that CA's certificate (PEM) in agent.ca_file; otherwise install a certificate from a public CA on the agent",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
	WarnCertName = health.Register(&health.Warnable{Code: "agent.certname", Text: "the agent's TLS certificate is not issued for the name or address agent.url uses",
		Fix:    "set agent.url to a name or address the agent's certificate lists, or give the agent a certificate for the one agent.url uses",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
	// WarnPolicy is any other refusal by the network policy.
	WarnPolicy = health.Register(&health.Warnable{Code: "agent.policy", Text: "the network policy refuses the agent's URL",
		Fix:       "use the agent's https URL on a public address, or list its private network in agent.allow_networks; agent.allow_insecure_local is for development on loopback only",
		Person:    "This kiosk cannot reach its assistant. Please tell the staff.",
		Sentinels: []error{ErrPolicy}})
	WarnCard = health.Register(&health.Warnable{Code: "agent.card", Text: "the agent's card cannot be used by this kiosk",
		Fix:       "the agent's card cannot be used by this kiosk: give this report to the agent's operator",
		Person:    "This kiosk cannot talk to its assistant. Please tell the staff.",
		Sentinels: []error{ErrIncompatible}})
	// WarnUnreachable: no connection to the agent; AGENT_URL in Fix
	// stands for agent.url.
	WarnUnreachable = health.Register(&health.Warnable{Code: "agent.unreachable", Text: "the agent cannot be reached",
		Fix:    "check agent.url, the network (DNS, firewall, proxy) and that the agent is up: curl -sS AGENT_URL/.well-known/agent-card.json",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
)
