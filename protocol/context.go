package protocol

// AG-UI Context entries ({description, value} strings) may ride on a
// user.turn or a user.observation (agentcall-agui-0.1, "Optional AG-UI
// Context entries"). They are facts for the agent's model, never
// instructions, and grant nothing.

// ContextLanguage is the description of the entry whose value is the BCP 47
// tag of the language the person chose on the kiosk (its screen and its
// speech), so that the agent can answer in it.
const ContextLanguage = "The language the person reads and hears at the kiosk, as a BCP 47 tag; answer in it."

// MaxContextEntries bounds the entries a client sends with one turn: the
// contract states no bound, and the frame's 128 KiB would allow thousands.
const MaxContextEntries = 8
