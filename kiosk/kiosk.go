package kiosk

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/connlimit"
	"github.com/agentcall/acbridge/notice"
)

// Options configures a Server. A nil *Options is refused: Listen has no
// default, since the page is off unless the operator turns it on.
type Options struct {
	// Listen is the loopback address the page is served on, such as
	// "127.0.0.1:8080" or "localhost:8080"; port 0 picks a free one (Addr
	// tells which). Any address that is not loopback is refused.
	Listen string
	// Logger defaults to one that discards.
	Logger *slog.Logger
	// Now is the clock of the conversation's time stamps and of the
	// on-screen controls' events (default time.Now).
	Now func() time.Time
	// TextBox shows a text box whose turns Texts delivers (for teaching an
	// object by name on a kiosk with an on-screen keyboard). Off by default.
	TextBox bool
	// BodyTimeout bounds reading one request's body (default 5 s); a
	// request still sending its body then is cut off.
	BodyTimeout time.Duration
	// IdleTimeout closes a connection idle this long between requests
	// (default 60 s).
	IdleTimeout time.Duration
	// BrowserUser is the account that runs the kiosk's browser. When set,
	// only connections that account owns may open the live stream and
	// press a control that collects (scan, photo, talk): any local process
	// can load the page, and without this could press for a person. Empty:
	// any local account (a machine with no other users). An account that
	// does not exist turns those controls off, with a warning.
	BrowserUser string
	// StreamLifetime ends a live stream this long after it opened
	// (default 10 min); the page reconnects at once.
	StreamLifetime time.Duration
	// Title and Purpose head the page: what this kiosk is and what it is
	// for, in the operator's words. Empty: a generic line in the visitor's
	// language.
	Title, Purpose string
	// Languages are the languages a visitor may choose on the page (tags
	// from Languages). Fewer than two: no language button.
	Languages []string
	// Language is the page's language when a session starts (default
	// DefaultLanguage); it must be one of Languages when they are given.
	Language string
	// Speech offers speech mode on request: a long press of any on-screen
	// control, or its own button, turns it on for the session, and every
	// change of the screen is then said through SpeechCommand.
	Speech bool
	// SpeechCommand is the text-to-speech command (audio.tts_command),
	// given the words on its standard input and the language's tag in
	// ACBRIDGE_SPEECH_LANG. Empty: speech mode is not offered.
	SpeechCommand []string
	// Health holds the problems current on this kiosk: the page lists
	// each in the visitor's words while it is current. Nil: no standing
	// problems are shown (a failed collection still says why in the
	// conversation).
	Health *health.Tracker
}

var (
	// ErrClosed is returned by Run after Close.
	ErrClosed = errors.New("kiosk: closed")
	// ErrNotLoopback is wrapped by New's error for a listen address that
	// other machines could reach.
	ErrNotLoopback = errors.New("kiosk: the listen address must be a loopback address")
)

// Bounds of what the page may send and of what the server keeps.
const (
	maxBody     = 2 << 10 // a press, a focus report or a typed turn, as JSON
	maxTypedLen = 500     // characters of one typed turn
	maxPages    = 8       // live streams at once
	textsQueue  = 4       // typed turns waiting for the bridge
	maxConns    = 32      // open connections, the live stream's included
	heartbeat   = 15 * time.Second

	defaultStreamLife = 10 * time.Minute
)

// Server is the kiosk page: an HTTP server on loopback, the state it shows
// and the on-screen controls. Display feeds it; Source and Texts are read by
// the bridge; Run serves; Close stops everything.
type Server struct {
	log     *slog.Logger
	now     func() time.Time
	ln      net.Listener
	http    *http.Server
	token   string
	hosts   map[string]bool // Host header values that name this server
	origins map[string]bool
	textBox bool

	bodyTimeout time.Duration
	streamLife  time.Duration

	browser    string // Options.BrowserUser; "" lets any account in
	browserUID uint32
	browserOK  bool // browser names an account, browserUID its uid

	controls *button.Debouncer
	texts    chan string
	voice    *speaker    // speech mode's words to the TTS command
	warning  *time.Timer // says the reader's time is running out
	warnFor  int         // the arming (state.armings) warning is for
	keys     buttonKeys  // the focus walk's view of the buttons; under mu

	mu      sync.Mutex
	st      state
	pages   map[string]*page
	opened  uint64 // pages opened so far
	closed  bool
	running bool
	off     bool // the Source was closed: presses are refused

	done    chan struct{} // closed by Close: streams end
	streams sync.WaitGroup
	once    sync.Once
}

// New checks o, listens on o.Listen and makes the start's token. Serving
// begins with Run.
func New(o *Options) (*Server, error) {
	if o == nil {
		return nil, fmt.Errorf("kiosk: no options: %w", ErrNotLoopback)
	}
	host, port, err := checkListen(o.Listen)
	if err != nil {
		return nil, err
	}
	if err := CheckLanguages(o.Languages, o.Language); err != nil {
		return nil, fmt.Errorf("kiosk: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("kiosk: token: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("kiosk: %w (is another program using %s? choose another kiosk.listen)", err, o.Listen)
	}
	s := &Server{
		log:         log,
		now:         now,
		ln:          ln,
		token:       base64.RawURLEncoding.EncodeToString(tok),
		textBox:     o.TextBox,
		bodyTimeout: o.BodyTimeout,
		// Debouncing is for contacts; a press from the page arrives clean.
		// Cancel's long press is made by the handler (a tap on a screen
		// button labelled Cancel is deliberate), so no long-press timer.
		controls: button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1, Clock: clock{now}, Logger: log}),
		texts:    make(chan string, textsQueue),
		pages:    make(map[string]*page),
		done:     make(chan struct{}),
	}
	s.st.textBox = o.TextBox
	s.st.site = site{title: clip(o.Title, maxLineText), purpose: clip(o.Purpose, maxLineText),
		langs: o.Languages, lang: o.Language, speech: o.Speech && len(o.SpeechCommand) > 0}
	s.st.lang = s.st.site.lang
	s.voice = newSpeaker(o.SpeechCommand, log)
	if s.bodyTimeout <= 0 {
		s.bodyTimeout = defaultBodyTimeout
	}
	s.streamLife = o.StreamLifetime
	if s.streamLife <= 0 {
		s.streamLife = defaultStreamLife
	}
	if s.browser = o.BrowserUser; s.browser != "" {
		u, err := user.Lookup(s.browser)
		var uid uint64
		if err == nil {
			uid, err = strconv.ParseUint(u.Uid, 10, 32)
		}
		if err != nil {
			log.Warn("kiosk: the on-screen scan, photo and talk controls are off: kiosk.browser_user is not an account here; set it to the account that runs the browser",
				"browser_user", clip(s.browser, 64))
		}
		s.browserUID, s.browserOK = uint32(uid), err == nil
	}
	s.hosts, s.origins = allowedHosts(host, ln.Addr().(*net.TCPAddr).Port)
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = 60 * time.Second
	}
	s.http = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		// No WriteTimeout or ReadTimeout: the live stream is long-lived;
		// it ends with the page, with Close or at maxStream. Bodies have
		// their own deadline (BodyTimeout).
		IdleTimeout: idle,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	s.ln = connlimit.Serve(s.http, ln, maxConns)
	s.trackHealth(o.Health)
	return s, nil
}

// checkListen accepts "localhost:P" and loopback IPs only.
func checkListen(addr string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", "", fmt.Errorf("%w with a port, like 127.0.0.1:8080; got %q", ErrNotLoopback, clip(addr, 64))
	}
	if host == "localhost" {
		// Bound to the IPv4 loopback explicitly: "localhost" could resolve
		// to something else on a misconfigured machine.
		return "127.0.0.1", port, nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", "", fmt.Errorf("%w, like 127.0.0.1:8080, so that only this machine can reach the page; got %q", ErrNotLoopback, clip(addr, 64))
	}
	return host, port, nil
}

// allowedHosts lists the Host values that name this server: the bound
// address and localhost, on the bound port. Anything else is a name that
// was made to point at loopback (DNS rebinding) and is refused.
func allowedHosts(host string, port int) (hosts, origins map[string]bool) {
	p := fmt.Sprint(port)
	hosts = map[string]bool{net.JoinHostPort(host, p): true, net.JoinHostPort("localhost", p): true}
	if ip := net.ParseIP(host); ip != nil && ip.To4() != nil {
		hosts[net.JoinHostPort("127.0.0.1", p)] = true
	} else {
		hosts[net.JoinHostPort("::1", p)] = true
	}
	origins = map[string]bool{}
	for h := range hosts {
		origins["http://"+h] = true
	}
	return hosts, origins
}

// fromBrowser reports whether r comes from the account that runs the
// kiosk's browser (Options.BrowserUser), asking the kernel who owns the
// connection's other end.
func (s *Server) fromBrowser(r *http.Request) bool {
	if s.browser == "" {
		return true
	}
	if !s.browserOK {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	server, err1 := netip.ParseAddrPort(fmt.Sprint(local))
	client, err2 := netip.ParseAddrPort(r.RemoteAddr)
	if err1 != nil || err2 != nil {
		return false
	}
	uid, err := peerUID(server, client)
	return err == nil && uid == s.browserUID
}

// Addr is the address the page is served on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the page's address, for Chromium's --app flag.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Run serves the page until ctx is done or Close is called; it then closes
// the Server and returns nil. It may be called once.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.running {
		s.mu.Unlock()
		return errors.New("kiosk: Run called twice")
	}
	s.running = true
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	s.log.Info("kiosk page ready", "url", s.URL())
	err := s.http.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		s.Close() // a Close racing with Serve's return is done before Run returns
		return nil
	}
	s.Close()
	return fmt.Errorf("kiosk: %w", err)
}

// Close stops serving, ends every live stream and closes the on-screen
// controls (their Read returns button.ErrClosed). Texts is never closed, so
// a reader selecting on it never spins. Close is safe to call twice.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.off = true
		if s.warning != nil {
			s.warning.Stop()
		}
		s.mu.Unlock()
		close(s.done)
		s.http.Close()
		s.ln.Close()
		s.controls.Close()
		s.streams.Wait()
		s.voice.close()
	})
	return nil
}

// Source returns the on-screen controls as a button backend. Closing it
// turns the controls off (the page is told so when it presses); the page
// stays up until Close.
func (s *Server) Source() button.Source { return source{s} }

type source struct{ s *Server }

var _ button.Source = source{}

func (c source) Read(ctx context.Context) (button.Event, error) { return c.s.controls.Read(ctx) }

func (c source) Close() error {
	c.s.mu.Lock()
	c.s.off = true
	c.s.mu.Unlock()
	return c.s.controls.Close()
}

// Mask tells the page an object reference this kiosk sent: wherever an
// agent echoes its alias, whole or a run of 8 of its characters, however
// spelled, the page shows "(object)" instead. The last 64 are remembered.
func (s *Server) Mask(objectRef string) {
	s.mu.Lock()
	s.st.refs.add(objectRef)
	s.mu.Unlock()
}

// Texts delivers the turns typed in the page's text box (Options.TextBox).
// The channel is buffered and never closed; a turn typed while it is full is
// refused to the page rather than queued without bound.
func (s *Server) Texts() <-chan string { return s.texts }

// Display shows a notice on every connected page. It never blocks: pages
// are only signalled, and each fetches the present state when it can.
func (s *Server) Display(n notice.Notice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	var before view
	if s.st.speech {
		before = s.st.view()
	}
	ended := s.st.endsVisit(n)
	s.st.apply(n, s.now())
	s.sayChangeLocked(before)
	if ended {
		// The session's end is said first, in the visitor's language: a
		// person in speech mode hears that the kiosk is not available.
		// Then their choices end with it.
		s.st.forgetVisitor()
	}
	s.warnLocked()
	s.signalLocked()
}

// signalLocked wakes every stream; a page already due an update keeps one
// pending signal. Called with s.mu held.
func (s *Server) signalLocked() {
	for _, p := range s.pages {
		select {
		case p.dirty <- struct{}{}:
		default:
		}
	}
}

// newID returns a random identifier for a page.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// clip bounds a value quoted in an error message or shown on the page.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

// clock adapts Options.Now to button.Clock.
type clock struct{ now func() time.Time }

func (c clock) Now() time.Time { return c.now() }

func (c clock) AfterFunc(d time.Duration, f func()) button.Timer { return time.AfterFunc(d, f) }

var (
	_ button.Clock = clock{}
	_ io.Closer    = (*Server)(nil)
)
