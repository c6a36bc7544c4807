// Package connlimit bounds the connections a local HTTP server (the
// metrics endpoint, the kiosk page) holds, so that a local process opening
// thousands of keep-alive connections can neither exhaust the daemon's
// memory nor lock out the client the server is for. It implements no
// section of the AgentCall contract: it keeps the promise that a local
// peer never exhausts the kiosk and that what it can grow is bounded.
package connlimit
