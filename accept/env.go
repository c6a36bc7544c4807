package accept

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/station"
)

// The environment steps: what must be true of the machine before any
// device can work. They need nobody at the kiosk and finish in a second or
// two, which makes them `acbridge doctor`.

const envTimeout = 5 * time.Second

// Access modes of access(2).
const (
	accessR = 0x4
	accessW = 0x2
)

// Sane clock bounds: before minClock the clock was never set (a Raspberry
// Pi without RTC boots near its image date or 1970), TLS certificates fail
// and capturedAt lies.
var (
	minClock = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	maxClock = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

func (r *runner) envSteps() []*step {
	mk := func(id, title string, run func(ctx context.Context, t *T) error) *step {
		return &step{id: id, group: GroupEnvironment, title: title, timeout: envTimeout, run: run}
	}
	steps := []*step{
		mk("env.config", "the configuration loads and validates", r.envConfig),
		mk("env.pcscd", "pcscd is reachable", r.envPCSCD),
		mk("env.polkit", "pcscd (polkit) lets this user in", r.envPolkit),
		mk("env.pn533", "no pn533 kernel driver holds the reader", r.envPN533),
	}
	for _, d := range station.ReaderDrivers() {
		for _, a := range d.Accept {
			steps = append(steps, mk(a.ID, a.Title, r.stationStep(d.Name, a)))
		}
	}
	steps = append(steps,
		longer(mk("env.camera", "this user may open the camera", r.envCamera), rpicamTimeout),
		mk("env.audio", "this user may open the microphone and speaker", r.envAudio),
	)
	for _, src := range station.ButtonSources() {
		for _, a := range src.Accept {
			steps = append(steps, mk(a.ID, a.Title, r.stationStep("", a)))
		}
	}
	return append(steps,
		mk("env.keystore", "the keystore is present with mode 0600 on a persistent filesystem", r.envKeystore),
		mk("env.devices", "every device the configuration names by path exists", r.envDevices),
		mk("env.token", "the agent token file (agent.token_file) is there, mode 0600", r.envToken),
		mk("env.clock", "the clock is sane", r.envClock),
		mk("env.power", "the Raspberry Pi's supply is good (no under-voltage or throttling)", r.envPower),
		mk("env.kiosk", "the kiosk screen, when enabled, opens the page acbridge serves", r.envKiosk),
	)
}

// stationStep runs an acceptance step of station's device tables; one of
// a reader driver (driver not "") only when it is the configured driver.
func (r *runner) stationStep(driver string, a station.AcceptStep) func(context.Context, *T) error {
	return func(ctx context.Context, t *T) error {
		if driver != "" && r.cfg.NFC.Driver != driver {
			return skipf("nfc.driver is %q, not %s", r.cfg.NFC.Driver, driver)
		}
		notes, err := a.Run(ctx, &station.AcceptEnv{Config: r.cfg, Logger: r.o.Logger, RC522: r.o.RC522})
		for _, n := range notes {
			t.note("%s", n)
		}
		switch {
		case errors.Is(err, station.ErrSkip):
			return skipf("%s", strings.TrimPrefix(err.Error(), station.ErrSkip.Error()+": "))
		case err != nil:
			return failErr(err, "")
		}
		return nil
	}
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}

func (r *runner) envConfig(_ context.Context, t *T) error {
	if r.o.ConfigErr != nil {
		return failErr(r.o.ConfigErr, "fix the file (acbridge run --check-config --config FILE shows every problem); the annotated example is config/acbridge.example.toml. The other steps use the defaults meanwhile")
	}
	if r.o.ConfigPath != "" {
		t.note("configuration: %s", r.o.ConfigPath)
	}
	t.note("modalities enabled: %s", strings.Join(r.cfg.Modalities.Enabled, ", "))
	return nil
}

// pcscUnused skips a pcscd step on a kiosk whose reader does not go
// through pcscd: a kiosk without pcscd installed must not fail doctor.
func (r *runner) pcscUnused() error {
	if d := r.cfg.NFC.Driver; d != station.PCSC {
		return skipf("not used: nfc.driver = %q reads tags without pcscd", d)
	}
	return nil
}

func (r *runner) envPCSCD(ctx context.Context, t *T) error {
	if err := r.pcscUnused(); err != nil {
		return err
	}
	infos, err := r.rig.readers(ctx)
	switch {
	case errors.Is(err, nfc.ErrAccessDenied):
		t.note("pcscd answers but refuses this user (see env.polkit)")
		return nil
	case err != nil:
		return failErr(err, "")
	}
	t.measure("readers", float64(len(infos)), "")
	t.note("readers: %s", readerNames(infos))
	return nil
}

func (r *runner) envPolkit(ctx context.Context, t *T) error {
	if err := r.pcscUnused(); err != nil {
		return err
	}
	_, err := r.rig.readers(ctx)
	switch {
	case errors.Is(err, nfc.ErrAccessDenied):
		return failErr(err, nfc.WarnPolkit.Fix)
	case err != nil:
		return t.needs(err, "env.pcscd", "pcscd is not reachable, so its access rules cannot be checked")
	}
	t.note("pcscd accepts user %s", currentUser())
	return nil
}

func (r *runner) envPN533(ctx context.Context, t *T) error {
	if err := r.pcscUnused(); err != nil {
		return err
	}
	if n := acr122Note("/sys"); n != "" {
		t.note("%s", n)
	}
	if _, err := os.Stat("/sys/module/pn533_usb"); err == nil {
		t.note("kernel module pn533_usb is loaded; blacklist it (packaging/modprobe-acbridge.conf) so that it never claims a PN533 reader")
	}
	infos, err := r.rig.readers(ctx)
	if err != nil {
		return t.needs(err, "env.pcscd", "pcscd is not reachable, so the reader cannot be checked")
	}
	if r.rig.wantedReader(infos) {
		t.note("pcscd serves the reader, so no kernel driver holds it")
		return nil
	}
	// No reader: let package nfc say why, which includes the pn533 case.
	st := r.rig.probeStatus(ctx, time.Second)
	if errors.Is(st.Err, nfc.ErrKernelDriver) {
		return failErr(st.Err, nfc.WarnKernelDriver.Fix)
	}
	t.note("no reader is connected (see nfc.reader); no pn533 binding found")
	return nil
}

// deniedNodes returns the paths among nodes that this user may not open
// with mode.
func deniedNodes(nodes []string, mode uint32) []string {
	var denied []string
	for _, n := range nodes {
		if err := syscall.Access(n, mode); errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			denied = append(denied, n)
		}
	}
	return denied
}

func (r *runner) envCamera(ctx context.Context, t *T) error {
	if !r.cfg.Enabled("photo") {
		return skipf("the photo modality is not enabled (modalities.enabled)")
	}
	dev := r.cfg.Camera.Device
	picked := camera.Pick(ctx, dev)
	switch station.CameraSourceOf(picked).Name {
	case station.CameraTest:
		t.note("the test-pattern camera (simulation) has no device node")
		return nil
	case station.CameraRPi:
		return r.envRPiCam(ctx, t, picked)
	}
	var nodes []string
	if strings.HasPrefix(dev, "/") {
		if _, err := os.Stat(dev); err != nil {
			return failf(camera.WarnNotFound.Fix, "camera.device %s does not exist", dev)
		}
		nodes = []string{dev}
	} else {
		nodes, _ = filepath.Glob("/dev/video*")
		if len(nodes) == 0 {
			return failf("connect the camera (USB, or the CSI ribbon with the camera enabled) and check `ls /dev/video*`", "no camera device node (/dev/video*)")
		}
	}
	denied := deniedNodes(nodes, accessR|accessW)
	if len(denied) == len(nodes) {
		return failf(camera.WarnPermission.Fix, "user %s may not open %s", currentUser(), strings.Join(denied, ", "))
	}
	if len(denied) > 0 {
		t.note("user %s may not open %s", currentUser(), strings.Join(denied, ", "))
	}
	t.note("camera nodes: %s", strings.Join(nodes, ", "))
	return nil
}

func (r *runner) envAudio(_ context.Context, t *T) error {
	var problems, fixes []string
	check := func(what, glob, fixMissing string, test bool) {
		if test {
			t.note("%s: simulated, no device node", what)
			return
		}
		nodes, _ := filepath.Glob(glob)
		if len(nodes) == 0 {
			problems = append(problems, "no "+what+" device ("+glob+")")
			fixes = append(fixes, fixMissing)
			return
		}
		if denied := deniedNodes(nodes, accessR|accessW); len(denied) == len(nodes) {
			problems = append(problems, fmt.Sprintf("user %s may not open the %s (%s)", currentUser(), what, strings.Join(denied, ", ")))
			fixes = append(fixes, audio.WarnPermission.Fix)
		}
	}
	check("microphone", "/dev/snd/pcmC*D*c", audio.WarnNoMicrophone.Fix, r.cfg.Audio.Microphone == audio.TestDevice)
	check("speaker", "/dev/snd/pcmC*D*p", audio.WarnNoSpeaker.Fix, r.rig.over().Speaker != nil)
	if len(problems) > 0 && !audioUsed(r) {
		audioNote(t, problems)
		return nil
	}
	if len(problems) > 0 {
		return failf(strings.Join(slices.Compact(fixes), "; "), "%s", strings.Join(problems, "; "))
	}
	return nil
}

func (r *runner) envKeystore(_ context.Context, t *T) error {
	path := r.cfg.Keystore.Path
	ks, err := r.rig.keystore()
	switch {
	case errors.Is(err, keystore.ErrNotExist):
		// Not a problem: the daemon creates it on its first start.
		t.note("%s does not exist yet: it will be created on first start (or now, as the service user: sudo -u acbridge acbridge keys init --keystore %s)", path, path)
		return nil
	case errors.Is(err, keystore.ErrInsecureMode):
		return failErr(err, "chmod 600 "+path)
	case errors.Is(err, keystore.ErrUntrusted):
		return failErr(err, keystore.WarnOwner.Fix)
	case errors.Is(err, keystore.ErrMalformed):
		return failErr(err, "restore the file from a backup, or replace it with acbridge keys init (every tag alias changes, so agents forget the tags)")
	case errors.Is(err, fs.ErrPermission):
		return failErr(err, keystore.WarnAccess.Fix)
	case err != nil:
		return failErr(err, "")
	}
	t.measure("epoch", float64(ks.Epoch()), "")
	t.note("fingerprint %s", ks.Fingerprint())
	if err := keystore.CheckPersistent(path, ""); err != nil {
		if !r.cfg.Keystore.AllowVolatile {
			return failErr(err, "")
		}
		t.note("lost at reboot, allowed by keystore.allow_volatile: %v", err)
	}
	return nil
}

func (r *runner) envClock(_ context.Context, t *T) error {
	now := r.o.Now()
	if now.Before(minClock) || !now.Before(maxClock) {
		return failf("enable network time (timedatectl set-ntp true; systemd-timesyncd) or set the clock (date -s); a Raspberry Pi without a battery-backed RTC needs network time at boot",
			"the clock reads %s", now.UTC().Format(time.RFC3339))
	}
	synced, maxErr, ok := kernelClockSync()
	switch {
	case !ok:
	case synced:
		t.note("the kernel reports the clock synchronized")
		t.measureDur("maxError", maxErr)
	default:
		t.note("the kernel reports the clock not synchronized: enable network time (timedatectl set-ntp true)")
	}
	return nil
}
