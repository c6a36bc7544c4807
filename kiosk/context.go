package kiosk

import "github.com/agentcall/acbridge/protocol"

// Context is the AG-UI Context the bridge sends with each turn
// (bridge.Options.Context): the language of the session's screen and
// speech, so that the agent can answer in it. It changes with the
// language button and returns to the default when the session ends.
// Safe for concurrent use; it never blocks on a page.
func (s *Server) Context() []protocol.ContextEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []protocol.ContextEntry{{Description: protocol.ContextLanguage, Value: s.st.language()}}
}
