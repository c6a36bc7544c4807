package deptest

import (
	"slices"
	"strings"
	"testing"
)

// The layers of docs/architecture.md, as module-relative directories.
var (
	// hardware are the device classes and their drivers: they know
	// nothing of sessions, agents, the screen or the configuration file.
	hardware = []string{"nfc", "camera", "audio", "button", "power", "keystore"}
	// upper are the layers above the hardware.
	upper = []string{"bridge", "client", "daemon", "kiosk", "station", "accept", "demo", "fleet", "provision", "agent"}
	// drivers are the hardware drivers behind the device-class
	// interfaces; only station opens them.
	drivers = []string{"nfc/pn532", "nfc/rc522", "nfc/keyboard", "nfc/vpcd", "nfc/poll", "nfc/tagscan",
		"camera/rpicam", "button/evdev", "button/gpio", "button/term"}
	// backends are what the bridge never reaches: the drivers and the
	// layers that open them.
	backends = append(slices.Clone(drivers), "station", "daemon", "kiosk", "config")
	// simulations run a kiosk built the daemon's way (daemon.Build,
	// station): they name devices only as station.Overrides.
	simulations = []string{"demo", "accept/acceptsim"}
	// shipped are the commands that are packaged or published.
	shipped = []string{"cmd/acbridge", "cmd/acbridge-check"}
	// ioStd are the standard packages that reach outside the process, or
	// read the clock, which the protocol's pure state machine never does.
	ioStd = []string{"os", "os/exec", "os/signal", "os/user", "net", "net/http", "net/netip", "net/url", "syscall",
		"io/fs", "io/ioutil", "path/filepath", "log", "log/slog", "time", "crypto/rand", "math/rand", "math/rand/v2"}
	// thirdPartyDoubles are test drivers of libraries that the shipped
	// binary links on purpose, each with the reason.
	thirdPartyDoubles = map[string]string{
		"github.com/pion/mediadevices/pkg/driver/videotest": "the test-pattern camera (camera.TestDevice) that acbridge photo --camera and the acceptance offer",
		"github.com/pion/mediadevices/pkg/driver/audiotest": "the sine microphone (audio.TestDevice) the acceptance offers",
	}
)

// testSupport reports whether the module package rel is a test double, a
// test helper or a simulation: xxxtest packages, internal/testutil, the
// simulated kiosk and what runs on it.
func testSupport(rel string) bool {
	last := rel[strings.LastIndex(rel, "/")+1:]
	switch {
	case strings.HasSuffix(last, "test"), Within(rel, "internal/testutil"):
		return true
	}
	for _, sim := range []string{"station/sim", "accept/acceptsim", "nfc/vpcd", "demo", "cmd/acbridge-demo"} {
		if Within(rel, sim) {
			return true
		}
	}
	return false
}

func within(rel string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return Within(rel, d) })
}

// checker reports each broken rule once per package and import.
type checker struct {
	t *testing.T
	g map[string]*Package
}

func (c *checker) local(fn func(rel string, p *Package)) {
	for _, p := range c.g {
		if rel, ok := Local(p.ImportPath); ok {
			fn(rel, p)
		}
	}
}

// listed returns the module package rel, which go list must have found.
func (c *checker) listed(t *testing.T, rel string) *Package {
	t.Helper()
	p := c.g[Module+"/"+rel]
	if p == nil {
		t.Fatalf("%s not listed", rel)
	}
	return p
}

func TestLayering(t *testing.T) {
	c := &checker{t: t, g: Graph(t, Module+"/...")}
	if len(c.g) < 50 {
		t.Fatalf("go list found %d packages; is the test running inside the module?", len(c.g))
	}

	t.Run("shipped binaries hold no test code or simulation", func(t *testing.T) {
		for _, cmd := range shipped {
			for _, d := range c.listed(t, cmd).Deps {
				rel, ok := Local(d)
				switch {
				case ok && testSupport(rel):
					t.Errorf("%s links %s, a test double or simulation: it belongs in cmd/acbridge-demo or a test", cmd, rel)
				case d == "testing" || strings.HasPrefix(d, "testing/") || d == "net/http/httptest":
					t.Errorf("%s links the standard library's %s", cmd, d)
				case !ok && !c.g[d].Standard && strings.HasSuffix(d, "test") && thirdPartyDoubles[d] == "":
					t.Errorf("%s links %s, a library's test double; if it must ship, list it with the reason in thirdPartyDoubles", cmd, d)
				}
			}
		}
	})

	t.Run("only test support imports test support", func(t *testing.T) {
		c.local(func(rel string, p *Package) {
			if testSupport(rel) {
				return
			}
			for _, imp := range p.Imports {
				if r, ok := Local(imp); ok && testSupport(r) {
					t.Errorf("%s imports %s, a test double or simulation", rel, r)
				}
			}
		})
	})

	t.Run("protocol does no I/O", func(t *testing.T) {
		c.local(func(rel string, p *Package) {
			if !Within(rel, "protocol") {
				return
			}
			for _, imp := range p.Imports {
				if r, ok := Local(imp); ok && !Within(r, "protocol") {
					t.Errorf("%s imports %s: the protocol depends on nothing of ours", rel, r)
				}
				if slices.Contains(ioStd, imp) {
					t.Errorf("%s imports %s: the protocol's state machine takes bytes and times from its caller", rel, imp)
				}
			}
		})
	})

	t.Run("hardware knows no session, agent or screen", func(t *testing.T) {
		c.local(func(rel string, p *Package) {
			if !within(rel, hardware) || testSupport(rel) {
				return
			}
			for _, d := range p.Deps {
				if r, ok := Local(d); ok && within(r, upper) {
					t.Errorf("%s depends on %s: device packages sit below %v", rel, r, upper)
				}
			}
		})
	})

	t.Run("bridge never reaches a hardware backend", func(t *testing.T) {
		c.local(func(rel string, p *Package) {
			if !Within(rel, "bridge") || testSupport(rel) {
				return
			}
			for _, d := range p.Deps {
				if r, ok := Local(d); ok && within(r, backends) {
					t.Errorf("%s depends on %s: the bridge sees devices through their class interfaces; station opens backends", rel, r)
				}
			}
		})
	})

	t.Run("the simulation builds through daemon and station", func(t *testing.T) {
		for _, rel := range simulations {
			for _, imp := range c.listed(t, rel).Imports {
				// nfc/vpcd is also the virtual card a simulated visitor
				// taps, which is no device of the kiosk's.
				if r, ok := Local(imp); ok && within(r, drivers) && !Within(r, "nfc/vpcd") {
					t.Errorf("%s imports %s: a simulation opens devices through daemon.Build or station (station/sim makes its own), so that it runs what the daemon runs", rel, r)
				}
			}
		}
		if !slices.Contains(c.listed(t, "demo").Imports, Module+"/daemon") {
			t.Errorf("demo does not import daemon: it builds its kiosk with daemon.Build, as acbridge run does")
		}
	})

	t.Run("cmd only wires", func(t *testing.T) {
		c.local(func(rel string, p *Package) {
			if !Within(rel, "cmd") {
				for _, imp := range p.Imports {
					if r, ok := Local(imp); ok && Within(r, "cmd") {
						t.Errorf("%s imports %s: nothing imports a command", rel, r)
					}
				}
				return
			}
			if p.Name != "main" {
				t.Errorf("%s is package %s: cmd/ holds commands only; put libraries beside what they serve", rel, p.Name)
			}
			for _, imp := range p.Imports {
				if _, ok := Local(imp); !ok && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					t.Errorf("%s imports %s directly: commands parse flags and wire our packages, which own every library", rel, imp)
				}
			}
		})
	})
}
