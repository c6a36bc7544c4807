package health

// The agent's problems that no retry fixes: the kiosk keeps retrying at
// its slowest pace, and says so once.
var (
	AgentNetwork = Register(&Warnable{Code: "agent.network", Text: "the network policy refuses the agent's address",
		Fix:    "agent.url must name an agent at a public address; for an agent on the premises, list its private network in agent.allow_networks (like [\"10.20.0.0/16\"]) and reach it over https; loopback is for local development only (agent.allow_insecure_local)",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
	AgentCertAuthority = Register(&Warnable{Code: "agent.ca", Text: "the agent's TLS certificate is not signed by a certificate authority this kiosk trusts",
		Fix:    "if the agent's certificate comes from a private CA, give that CA's certificate (PEM) in agent.ca_file; otherwise install a certificate from a public CA on the agent",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
	AgentCertName = Register(&Warnable{Code: "agent.certname", Text: "the agent's TLS certificate is not issued for the name or address agent.url uses",
		Fix:    "set agent.url to a name or address the agent's certificate lists, or give the agent a certificate for the one agent.url uses",
		Person: "This kiosk cannot reach its assistant. Please tell the staff."})
)
