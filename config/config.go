package config

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// DefaultPath is where the Debian package installs the configuration.
const DefaultPath = "/etc/acbridge/acbridge.toml"

// MaxFileBytes bounds the configuration file.
const MaxFileBytes = 1 << 20

// Config is the whole configuration. Zero values mean the defaults given in
// acbridge.example.toml; Load fills them in.
type Config struct {
	Agent      Agent      `toml:"agent"`
	Keystore   Keystore   `toml:"keystore"`
	Modalities Modalities `toml:"modalities"`
	NFC        NFC        `toml:"nfc"`
	Camera     Camera     `toml:"camera"`
	Audio      Audio      `toml:"audio"`
	Buttons    []Button   `toml:"button"`
	LED        LED        `toml:"led"`
	Log        Log        `toml:"log"`
	Metrics    Metrics    `toml:"metrics"`
	Kiosk      Kiosk      `toml:"kiosk"`
	Update     Update     `toml:"update"`
}

// Agent says which agent to talk to and how.
type Agent struct {
	URL                string `toml:"url"`
	TokenFile          string `toml:"token_file"`
	AllowInsecureLocal bool   `toml:"allow_insecure_local"`
	// AllowNetworks are private networks (CIDR) an on-premises agent may
	// be reached at over https; CAFile a PEM bundle of a private CA
	// trusted besides the system's roots.
	AllowNetworks []string `toml:"allow_networks"`
	CAFile        string   `toml:"ca_file"`
	ReconnectMax  Duration `toml:"reconnect_max"`
	StableAfter   Duration `toml:"stable_after"`
	RunTimeout    Duration `toml:"run_timeout"`
	CancelGrace   Duration `toml:"cancel_grace"`
	RunMaxBytes   int      `toml:"run_max_bytes"`
	RunMaxEvents  int      `toml:"run_max_events"`
	// ICEServers and ICETransport: see ICEServer.
	ICEServers   []ICEServer `toml:"ice_servers"`
	ICETransport string      `toml:"ice_transport"`
}

// Keystore locates the device secret.
type Keystore struct {
	Path string `toml:"path"`
	// AllowVolatile lets the daemon create the secret on a tmpfs or
	// overlay (it is lost at reboot): for tests and demos only.
	AllowVolatile bool `toml:"allow_volatile"`
}

// Modalities enables physical inputs; the offer in session.start is this
// intersected with the hardware present.
type Modalities struct {
	Enabled []string `toml:"enabled"`
}

// NFC configures the tag reader.
type NFC struct {
	Reader string   `toml:"reader"`
	Window Duration `toml:"window"`
	Intent string   `toml:"intent"`
	// Buzzer keeps the ACR122U's beep (default off; see nfc.Options.Buzzer).
	Buzzer bool `toml:"buzzer"`
	// Driver names the reader driver: "pcsc" (default) or a row of
	// station's reader driver table, which checks the keys it reads
	// (Device, or SPIDevice and the reset line for "rc522").
	Driver string `toml:"driver"`
	Device string `toml:"device"`
	// SPIDevice, ResetChip and ResetLine place an "rc522" board (package
	// nfc/rc522); ResetLine -1: RST tied to 3.3 V.
	SPIDevice string `toml:"spi_device"`
	ResetChip string `toml:"reset_chip"`
	ResetLine int    `toml:"reset_line"`
	// References and AllowedPrefixes are the NDEF policy (package
	// nfc/ndef): "alias" (default), "ndef-then-alias" or "ndef-only".
	References      string   `toml:"references"`
	AllowedPrefixes []string `toml:"allowed_prefixes"`
}

// Camera configures photo capture.
type Camera struct {
	Device        string   `toml:"device"`
	Rotation      int      `toml:"rotation"`
	Mirror        bool     `toml:"mirror"`
	Intent        string   `toml:"intent"`
	SettleFrames  int      `toml:"settle_frames"`
	SettleTimeout Duration `toml:"settle_timeout"`
	// Timeout kills a ribbon camera's rpicam-still (device "rpicam:N")
	// that has not delivered its picture.
	Timeout Duration `toml:"timeout"`
}

// Audio configures the microphone, the speaker and an optional local TTS.
type Audio struct {
	Microphone string   `toml:"microphone"`
	Speaker    string   `toml:"speaker"`
	TTSCommand []string `toml:"tts_command"`
	// EngagementIdle ends a microphone engagement after this long without
	// an agent run or an observation.
	EngagementIdle Duration `toml:"engagement_idle"`
	// DuckDB lowers the speaker while TALK is held (push-to-talk):
	// -60 (the default) or below mutes it, up to -1.
	DuckDB float64 `toml:"duck_db"`
	// EchoCancel is "auto" (cancel the agent's voice from the microphone
	// when a speaker plays it), "on" or "off".
	EchoCancel    string  `toml:"echo_cancel"`
	NoiseSuppress bool    `toml:"noise_suppress"`
	MicGainDB     float64 `toml:"mic_gain_db"`
	// SpeakerVolume is the playback level in percent, 1..100.
	SpeakerVolume int `toml:"speaker_volume"`
}

// Button maps one physical control to its source.
type Button struct {
	Control string `toml:"control"`
	Source  string `toml:"source"`
	// gpio
	Chip      string `toml:"chip"`
	Line      int    `toml:"line"`
	ActiveLow bool   `toml:"active_low"`
	Bias      string `toml:"bias"`
	// evdev
	Device string `toml:"device"`
	Name   string `toml:"name"`
	Key    string `toml:"key"`
	Grab   bool   `toml:"grab"`
	// terminal
	Char string `toml:"char"`
	// all sources
	Debounce  Duration `toml:"debounce"`
	LongPress Duration `toml:"long_press"`
}

// LED is an optional GPIO output that shows the armed state.
type LED struct {
	Chip      string `toml:"chip"`
	Line      int    `toml:"line"`
	ActiveLow bool   `toml:"active_low"`
}

// Log configures the daemon's log.
type Log struct {
	Level  string `toml:"level"`
	Format string `toml:"format"`
}

// Metrics configures the optional Prometheus endpoint.
type Metrics struct {
	Listen string `toml:"listen"`
	// KioskID labels the metrics for a fleet-wide Prometheus; empty means
	// the host name (docs/fleet.md).
	KioskID string `toml:"kiosk_id"`
	// IdleTimeout closes a scrape connection idle this long.
	IdleTimeout Duration `toml:"idle_timeout"`
}

// Kiosk configures the optional local touch page.
type Kiosk struct {
	Listen  string `toml:"listen"`
	TextBox bool   `toml:"text_box"`
	// BrowserUser is the account that runs the kiosk's browser: only its
	// connections may show the page live and press scan, photo or talk
	// (docs/kiosk.md). "any" lets every local account do so.
	BrowserUser string `toml:"browser_user"`
	// Title and Purpose head the page: what this kiosk is and what it is
	// for, in the operator's words (default: a generic line).
	Title   string `toml:"title"`
	Purpose string `toml:"purpose"`
	// Languages a visitor may choose on the page, and the one each session
	// starts in (docs/kiosk.md, "Languages").
	Languages []string `toml:"languages"`
	Language  string   `toml:"language"`
	// Speech is "off" or "on-request": a long press or the page's
	// "Read aloud" button says the screen aloud through audio.tts_command.
	Speech string `toml:"speech"`
}

// Update names the release ring the kiosk follows (docs/fleet.md). Only
// `acbridge provision` acts on it, by choosing the apt sources; the daemon
// does not read it.
type Update struct {
	// Channel is "stable" (the default) or "canary".
	Channel string `toml:"channel"`
}

// Release rings of the repository (scripts/repo.sh's CHANNEL).
const (
	ChannelStable = "stable"
	ChannelCanary = "canary"
)

// AnyBrowserUser is the kiosk.browser_user that lets every local account
// show the page and press.
const AnyBrowserUser = "any"

// Duration is a time.Duration written as "15s", "1m30s".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("must be a duration in double quotes, such as \"15s\" or \"1m30s\"")
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Defaults returns the configuration with every default filled in and no
// agent URL.
func Defaults() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

func (c *Config) applyDefaults() {
	setDur := func(d *Duration, v time.Duration) {
		if d.Duration == 0 {
			d.Duration = v
		}
	}
	setStr := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	setDur(&c.Agent.ReconnectMax, 60*time.Second)
	setDur(&c.Agent.StableAfter, 30*time.Second)
	setDur(&c.Agent.RunTimeout, 30*time.Second)
	setDur(&c.Agent.CancelGrace, 5*time.Second)
	if c.Agent.RunMaxBytes == 0 {
		c.Agent.RunMaxBytes = 1 << 20
	}
	if c.Agent.RunMaxEvents == 0 {
		c.Agent.RunMaxEvents = 10000
	}
	setStr(&c.Keystore.Path, "/var/lib/acbridge/keystore.json")
	if c.Modalities.Enabled == nil {
		c.Modalities.Enabled = modalityNames()
	}
	setDur(&c.NFC.Window, 15*time.Second)
	setStr(&c.NFC.Intent, defaultIntent)
	setStr(&c.NFC.Driver, "pcsc")
	setStr(&c.NFC.References, "alias")
	c.applyRC522Defaults()
	setStr(&c.Camera.Intent, defaultIntent)
	if c.Camera.SettleFrames == 0 {
		c.Camera.SettleFrames = 30
	}
	setDur(&c.Camera.SettleTimeout, 2*time.Second)
	setDur(&c.Camera.Timeout, 10*time.Second)
	setDur(&c.Audio.EngagementIdle, 20*time.Second)
	setDur(&c.Metrics.IdleTimeout, 30*time.Second)
	setStr(&c.Kiosk.BrowserUser, "acbridge-kiosk")
	setStr(&c.Update.Channel, ChannelStable)
	if c.Audio.DuckDB == 0 {
		c.Audio.DuckDB = -60
	}
	setStr(&c.Audio.EchoCancel, "auto")
	if c.Audio.SpeakerVolume == 0 {
		c.Audio.SpeakerVolume = 100
	}
	setStr(&c.Agent.ICETransport, ICETransportAll)
	setStr(&c.Log.Level, "info")
	setStr(&c.Log.Format, "text")
	for i := range c.Buttons {
		b := &c.Buttons[i]
		setDur(&b.Debounce, 30*time.Millisecond)
		if b.Control == cancelControl {
			setDur(&b.LongPress, time.Second)
		}
	}
}

// Load reads, decodes and validates the file at path. Unknown keys are
// errors (a typo must not silently fall back to a default). override, if
// not nil, applies command-line flags before validation.
func Load(path string, override func(*Config)) (*Config, error) {
	f, err := openRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("config: %s does not exist: copy the annotated example (acbridge.example.toml) there and set agent.url", path)
		}
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("config: %s is larger than %d bytes", path, MaxFileBytes)
	}
	c, err := ParseWith(b, override)
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes and validates configuration text.
func Parse(b []byte) (*Config, error) { return ParseWith(b, nil) }

// ParseWith is Parse with overrides applied after the defaults and before
// validation.
func ParseWith(b []byte, override func(*Config)) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		return nil, typeError(err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, unknownKeys(string(b), und)
	}
	c.applyDefaults()
	if override != nil {
		override(&c)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Problems lists every validation problem; Validate joins them.
type Problems []string

func (p Problems) Error() string { return strings.Join(p, "; ") }

// accountName is what useradd accepts as a user name, bounded.
var accountName = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}\$?$`)

// kioskID bounds metrics.kiosk_id to what a Prometheus label value and a
// host name can both carry.
var kioskID = regexp.MustCompile(`^[A-Za-z0-9._-]{0,63}$`)

// Validate checks every key and reports all problems at once.
func (c *Config) Validate() error {
	var p Problems
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if c.Agent.URL == "" {
		add("agent.url is required (the agent's base URL, like https://agent.example)")
	} else if u, err := url.Parse(c.Agent.URL); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		add("agent.url must be an absolute https URL")
	} else if u.Scheme == "http" && !c.Agent.AllowInsecureLocal {
		add("agent.url is http: set agent.allow_insecure_local = true for local development (loopback only), or use https")
	} else if u.User != nil || u.RawQuery != "" {
		add("agent.url must not carry credentials or a query; use agent.token_file")
	}
	if c.Agent.ReconnectMax.Duration < time.Second || c.Agent.ReconnectMax.Duration > time.Hour {
		add("agent.reconnect_max must be between 1s and 1h")
	}
	if c.Agent.StableAfter.Duration < time.Second || c.Agent.StableAfter.Duration > time.Hour {
		add("agent.stable_after must be between 1s and 1h")
	}
	if c.Agent.RunTimeout.Duration < time.Second || c.Agent.RunTimeout.Duration > 10*time.Minute {
		add("agent.run_timeout must be between 1s and 10m")
	}
	if c.Agent.CancelGrace.Duration < 100*time.Millisecond || c.Agent.CancelGrace.Duration > time.Minute {
		add("agent.cancel_grace must be between 100ms and 1m")
	}
	if c.Agent.RunMaxBytes < 64<<10 || c.Agent.RunMaxBytes > 16<<20 {
		add("agent.run_max_bytes must be between 65536 (64 KiB) and 16777216 (16 MiB)")
	}
	if c.Agent.RunMaxEvents < 100 || c.Agent.RunMaxEvents > 1000000 {
		add("agent.run_max_events must be between 100 and 1000000")
	}
	c.Agent.checkICE(add)
	for _, m := range c.Modalities.Enabled {
		if !slices.Contains(modalityNames(), m) {
			add("modalities.enabled: unknown modality %q (%s)", clip(m), strings.Join(modalityNames(), ", "))
		}
	}
	c.validateReferences(add)
	if c.NFC.Window.Duration < time.Second || c.NFC.Window.Duration > 5*time.Minute {
		add("nfc.window must be between 1s and 5m")
	}
	for _, it := range []struct{ key, v string }{{"nfc.intent", c.NFC.Intent}, {"camera.intent", c.Camera.Intent}} {
		if !slices.Contains(intents, it.v) {
			add("%s must be one of %s", it.key, strings.Join(intents, ", "))
		}
	}
	if r := c.Camera.Rotation; r != 0 && r != 90 && r != 180 && r != 270 {
		add("camera.rotation must be 0, 90, 180 or 270")
	}
	if c.Camera.SettleFrames < 1 || c.Camera.SettleFrames > 300 {
		add("camera.settle_frames must be between 1 and 300")
	}
	if c.Camera.SettleTimeout.Duration <= 0 || c.Camera.SettleTimeout.Duration > 30*time.Second {
		add("camera.settle_timeout must be between 1ms and 30s")
	}
	if d := c.Camera.Timeout.Duration; d < time.Second || d > 2*time.Minute {
		add("camera.timeout must be between 1s and 2m")
	}
	if d := c.Audio.EngagementIdle.Duration; d < time.Second || d > time.Hour {
		add("audio.engagement_idle must be between 1s and 1h")
	}
	if d := c.Audio.DuckDB; !(d >= -200 && d <= -1) {
		add("audio.duck_db must be between -60 (mute; lower also mutes) and -1")
	}
	if !slices.Contains([]string{"auto", "on", "off"}, c.Audio.EchoCancel) {
		add("audio.echo_cancel must be auto, on or off")
	}
	if g := c.Audio.MicGainDB; !(g >= -20 && g <= 30) {
		add("audio.mic_gain_db must be between -20 and 30")
	}
	if v := c.Audio.SpeakerVolume; v < 1 || v > 100 {
		add("audio.speaker_volume must be between 1 and 100 (percent)")
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level) {
		add("log.level must be debug, info, warn or error")
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		add("log.format must be text or json")
	}
	for _, l := range []struct{ key, v string }{{"metrics.listen", c.Metrics.Listen}, {"kiosk.listen", c.Kiosk.Listen}} {
		if l.v != "" && !loopbackAddr(l.v) {
			add("%s must be a loopback address with a port between 0 and 65535, like 127.0.0.1:9464", l.key)
		}
	}
	if !accountName.MatchString(c.Kiosk.BrowserUser) {
		add("kiosk.browser_user must be an account name (the one that runs the kiosk's browser) or \"any\"")
	}
	if d := c.Metrics.IdleTimeout.Duration; d < 100*time.Millisecond || d > 10*time.Minute {
		add("metrics.idle_timeout must be between 100ms and 10m")
	}
	if c.Kiosk.Speech != "" && c.Kiosk.Speech != "off" && c.Kiosk.Speech != "on-request" {
		add("kiosk.speech must be \"off\" or \"on-request\"")
	}
	if c.Kiosk.Speech == "on-request" && len(c.Audio.TTSCommand) == 0 {
		add("kiosk.speech = \"on-request\" needs audio.tts_command (the command that says the screen aloud)")
	}
	if c.Update.Channel != ChannelStable && c.Update.Channel != ChannelCanary {
		add("update.channel must be stable or canary")
	}
	if !kioskID.MatchString(c.Metrics.KioskID) {
		add("metrics.kiosk_id must be at most 63 letters, digits, '.', '_' or '-'")
	}
	seen := map[string]bool{}
	for i, b := range c.Buttons {
		key := fmt.Sprintf("button[%d]", i)
		if !slices.Contains(controls, b.Control) {
			add("%s.control must be one of %s", key, strings.Join(controls, ", "))
		}
		switch b.Source {
		case "gpio":
			if b.Chip == "" || b.Line < 0 {
				add("%s: a gpio button needs chip and line", key)
			}
		case "evdev":
			if b.Device == "" && b.Name == "" {
				add("%s: an evdev button needs device or name", key)
			}
			if b.Key == "" {
				add("%s: an evdev button needs key (like KEY_F1 or a number)", key)
			}
		case "terminal":
			if len([]rune(b.Char)) != 1 {
				add("%s: a terminal button needs char, one character", key)
			}
		default:
			add("%s.source must be gpio, evdev or terminal", key)
		}
		id := b.Source + "|" + b.Chip + fmt.Sprint(b.Line) + "|" + b.Device + b.Name + b.Key + "|" + b.Char
		if seen[id] {
			add("%s uses the same input as an earlier button", key)
		}
		seen[id] = true
		if b.Debounce.Duration < 0 || b.Debounce.Duration > time.Second {
			add("%s.debounce must be between 0 and 1s", key)
		}
	}
	c.validateValues(add)
	if len(p) > 0 {
		return p
	}
	return nil
}

func loopbackAddr(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || !validPort(port) {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func clip(s string) string {
	if r := []rune(s); len(r) > 32 {
		return string(r[:32]) + "…"
	}
	return s
}

// Enabled reports whether modality m is enabled.
func (c *Config) Enabled(m string) bool { return slices.Contains(c.Modalities.Enabled, m) }
