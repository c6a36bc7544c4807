package protocol

// Modality is a physical input kind negotiated per session.
type Modality string

const (
	NFC   Modality = "nfc"
	Photo Modality = "photo"
)

// Modalities lists the 0.1 modalities in a stable order.
var Modalities = []Modality{NFC, Photo}

// The observation intents 0.1 defines.
const (
	IntentIdentify = "identify"
	IntentRemember = "remember"
	IntentInspect  = "inspect"
	IntentAct      = "act"
)

// Intents lists the 0.1 intents in a stable order.
var Intents = []string{IntentIdentify, IntentRemember, IntentInspect, IntentAct}

// Bounds stated by the spec. The strings a peer sends (texts, prompts,
// identifiers, failure codes) have none of their own: a frame bounds them,
// and what a receiver shows or speaks it shortens itself.
const (
	MaxCardBytes   = 256 << 10 // "Cards are at most 256 KiB"
	MaxFrameBytes  = 128 << 10 // "each UTF-8 JSON frame is at most 128 KiB"
	MaxSDPBytes    = 128 << 10 // SDP answer bound
	MaxImageBytes  = 61440     // decoded JPEG bytes
	MaxImagePixels = 1024      // on either side
	MaxLabelLen    = 256       // reference proof: label length
)

// MaxTextLen is acbridge's bound on a line typed at its own terminal: what
// this client sends, never a bound on what it receives.
const MaxTextLen = 16 << 10

// Observation is the 0.1 physical observation: an object (tag alias), an
// image (bounded JPEG), or both.
type Observation struct {
	SchemaVersion string  `json:"schemaVersion"`
	ObservationID string  `json:"observationId"`
	CapturedAt    string  `json:"capturedAt"`
	Intent        string  `json:"intent"`
	Object        *Object `json:"object,omitempty"`
	Image         *Image  `json:"image,omitempty"`
}

// Object is an opaque reference to a physical object, such as a keyed tag alias.
type Object struct {
	ObjectRef     string `json:"objectRef"`
	Carrier       string `json:"carrier"`
	Assurance     string `json:"assurance"`
	PayloadSHA256 string `json:"payloadSha256"`
}

// Image is a bounded, metadata-free JPEG carried inline.
type Image struct {
	MediaType   string `json:"mediaType"`
	DataBase64  string `json:"dataBase64"`
	ByteCount   int    `json:"byteCount"`
	SHA256      string `json:"sha256"`
	PixelWidth  int    `json:"pixelWidth"`
	PixelHeight int    `json:"pixelHeight"`
}

// Modalities returns the modalities an observation needs negotiated.
func (o *Observation) Modalities() []Modality {
	var m []Modality
	if o.Object != nil {
		m = append(m, NFC)
	}
	if o.Image != nil {
		m = append(m, Photo)
	}
	return m
}

// Values used by producers.
const (
	SchemaVersion       = "0.1"
	CarrierLocalTag     = "localTag"
	AssuranceUnverified = "unverifiedTag"
	MediaTypeJPEG       = "image/jpeg"
	ObjectRefPrefix     = "urn:agentcall:object:"
)
