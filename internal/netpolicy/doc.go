// Package netpolicy is the address half of the client's network policy
// (AgentCall AG-UI 0.1, "WebSocket and WebRTC": "Apply HTTPS, DNS/IP,
// redirect, timeout, credential, and size validation before connecting";
// HTTP/WS "only under an explicit local-development policy"): which IP
// addresses an agent, its AG-UI endpoint and its ICE candidates may be
// reached at. Package client applies it to every connection; package config
// applies it to address literals at --check-config time, so that both judge
// an address by the same rules.
//
// The default is public addresses only (no SSRF into the kiosk's LAN). Two
// explicit opt-ins widen it: the local-development policy (loopback, and
// plain http/ws only there) and allow-listed private networks for agents on
// the premises (https only, certificates checked as usual).
package netpolicy
