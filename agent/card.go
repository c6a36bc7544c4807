package agent

import (
	"encoding/json"
	"net/http"

	"github.com/agentcall/acbridge/protocol"
)

// a2aCard is the A2A 1.0 Agent Card this agent serves: the fields A2A
// requires plus the AgentCall extension. supportedInterfaces is empty on
// purpose: the spec reserves it for actual A2A interfaces, and the reference
// agent serves none — only the AG-UI endpoint the extension names.
type a2aCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	Version              string                    `json:"version"`
	SupportedInterfaces  []struct{}                `json:"supportedInterfaces"`
	Capabilities         a2aCapabilities           `json:"capabilities"`
	SecuritySchemes      map[string]securityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []securityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []a2aSkill                `json:"skills"`
}

type a2aCapabilities struct {
	Streaming  bool           `json:"streaming"`
	Extensions []a2aExtension `json:"extensions"`
}

type a2aExtension struct {
	URI         string          `json:"uri"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Params      protocol.Params `json:"params"`
}

type a2aSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
}

// securityScheme and securityRequirement follow A2A 1.0's JSON for an HTTP
// bearer scheme ({"httpAuthSecurityScheme":{"scheme":"Bearer"}}).
type securityScheme struct {
	HTTPAuth struct {
		Scheme string `json:"scheme"`
	} `json:"httpAuthSecurityScheme"`
}

type securityRequirement struct {
	Schemes map[string]struct {
		List []string `json:"list"`
	} `json:"schemes"`
}

const bearerSchemeName = "bearer"

// card returns the card for clients that reach the agent at base.
func (a *Agent) card(base string) ([]byte, error) {
	c := a2aCard{
		Name:                a.name,
		Description:         "AgentCall AG-UI 0.1 reference agent: identifies scanned objects and learns labels for them in session-local memory, only after confirmation.",
		Version:             protocol.SchemaVersion + ".0",
		SupportedInterfaces: []struct{}{},
		Capabilities: a2aCapabilities{Extensions: []a2aExtension{{
			URI:         a.uri,
			Description: "AgentCall AG-UI extension 0.1: public base and physical observations",
			Params: protocol.Params{
				SchemaVersion: protocol.SchemaVersion,
				AGUI: protocol.AGUI{
					URL:       base + AGUIPath,
					Transport: a.transport,
					Session:   &protocol.SessionOptions{},
					WebRTC:    a.webrtcProfile(),
				},
				Voice: protocol.Voice{Owner: a.voiceOwner()},
				PhysicalObservations: protocol.PhysicalParameters{
					Accepted:      a.cfg.Accepted,
					AgentRequests: a.cfg.AgentRequests,
				},
			},
		}}},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2aSkill{{
			ID:          "object-teaching",
			Name:        "Object teaching",
			Description: "Names a scanned object it was taught in this session; teaching needs an explicit confirmation and nothing outlives the session.",
			Tags:        []string{"nfc", "photo", "agentcall"},
			Examples:    []string{"scan an object", "teach object Workshop router", "confirm object", "cancel teaching", "take a photo"},
		}},
	}
	if a.tokenSum != nil {
		var s securityScheme
		s.HTTPAuth.Scheme = "Bearer"
		c.SecuritySchemes = map[string]securityScheme{bearerSchemeName: s}
		req := securityRequirement{Schemes: map[string]struct {
			List []string `json:"list"`
		}{bearerSchemeName: {List: []string{}}}}
		c.SecurityRequirements = []securityRequirement{req}
	}
	return json.MarshalIndent(c, "", "  ")
}

func (a *Agent) serveCard(w http.ResponseWriter, r *http.Request) {
	b, err := a.card(a.baseURL(r))
	if err != nil {
		a.log.Error("agent: card does not encode", "err", err)
		http.Error(w, "card unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}
