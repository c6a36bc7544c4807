package presstosent

import (
	"context"
	"image"
	stdjpeg "image/jpeg"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/frame"
	"github.com/pion/mediadevices/pkg/prop"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/camera/cameratest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/protocol"
)

// scenePhoto is the stand-in cameras' scene when Debian's mate-backgrounds
// is installed (a real photo costs the encoder what a real scene does);
// otherwise cameratest's synthetic one.
const scenePhoto = "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg"

func loadScene(b *testing.B) *image.YCbCr {
	f, err := os.Open(scenePhoto)
	if err != nil {
		b.Logf("scene: synthetic (%v)", err)
		return nil
	}
	defer f.Close()
	img, err := stdjpeg.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	y, _ := img.(*image.YCbCr)
	return y
}

// session is a WebSocket session with the reference agent on loopback.
func session(b *testing.B) *client.Session {
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(a)
	b.Cleanup(func() { srv.Close(); a.Close() })
	ctx := context.Background()
	ag, err := client.Discover(ctx, srv.URL, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{Modalities: []protocol.Modality{protocol.Photo}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// runDone waits for the agent to finish answering an observation, so the
// next press is not refused as run.active.
func runDone(b *testing.B, s *client.Session) {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case env := <-s.Events():
			if env.Event.Type == protocol.EventRunCompleted {
				return
			}
		case <-s.Done():
			b.Fatalf("session ended: %v", s.Err())
		case <-timeout:
			b.Fatal("no run.completed within 30 s")
		}
	}
}

// maxPresses caps the presses per camera whatever -benchtime asks (make
// bench runs every benchmark 200 times): a press takes up to 1.5 s here,
// and the averages settle within a few.
const maxPresses = 10

type camCase struct {
	name     string
	modes    []prop.Media // nil: mediadevices' test pattern
	exposure func(int) int
}

// BenchmarkPressToSent measures press → observation sent, per stage. The
// stand-ins' exposure is right from the first frame unless the case says
// ramp (then auto-exposure converges over about six frames).
func BenchmarkPressToSent(b *testing.B) {
	m := cameratest.Mode
	const yuyv, i420, mjpg = frame.FormatYUYV, frame.FormatI420, frame.FormatMJPEG
	webcam := []prop.Media{ // a typical USB2 webcam's list
		m(640, 480, yuyv, 30), m(1280, 720, yuyv, 10), m(1920, 1080, yuyv, 5),
		m(640, 480, mjpg, 30), m(1280, 720, mjpg, 30), m(1920, 1080, mjpg, 30),
	}
	cases := []camCase{
		{name: "testpattern-640x480"},
		{name: "standin-1080p-raw30", modes: []prop.Media{m(1920, 1080, i420, 30)}},
		{name: "standin-1080p-raw5", modes: []prop.Media{m(1920, 1080, yuyv, 5)}},
		{name: "standin-4K-raw30", modes: []prop.Media{m(3840, 2160, i420, 30)}},
		{name: "standin-4K-mjpeg30", modes: []prop.Media{m(3840, 2160, mjpg, 30)}},
		{name: "standin-usb2-webcam", modes: webcam},
		{name: "standin-usb2-webcam-ramp", modes: webcam, exposure: cameratest.Ramp(-80)},
	}
	var scene *image.YCbCr
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cfg := camera.Config{Device: camera.TestDevice}
			if c.modes != nil {
				if scene == nil {
					scene = loadScene(b)
				}
				st := &cameratest.Camera{Modes: c.modes, Picture: scene, Exposure: c.exposure}
				drv, err := st.Driver("standin-" + c.name)
				if err != nil {
					b.Fatal(err)
				}
				cfg = camera.Config{Device: drv.Info().Label, Drivers: func() []driver.Driver { return []driver.Driver{drv} }}
			}
			cam, err := camera.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer cam.Close()
			s := session(b)
			ctx := context.Background()
			var sum [8]time.Duration // open choose settle encode send total floor cpu
			var mode camera.Mode
			presses := min(b.N, maxPresses)
			b.ResetTimer()
			for i := 0; i < presses; i++ {
				cpu0 := processCPU()
				press := time.Now()
				f, err := cam.Capture(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := jpeg.Encode(f.Image, nil)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				obs := &protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: "photo-bench",
					CapturedAt: f.CapturedAt.UTC().Format(time.RFC3339), Intent: "identify", Image: &res.Image}
				if _, err := s.Observe(ctx, obs, ""); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				cpu := processCPU() - cpu0
				b.StopTimer()
				st := f.Stages
				fps := float64(f.Mode.FPS)
				if fps <= 0 {
					fps = 30
				}
				floor := time.Duration(float64(time.Second)/fps) + t2.Sub(t1)
				for j, d := range []time.Duration{st.Open, st.Choose, st.Settle, t2.Sub(t1), t3.Sub(t2), t3.Sub(press), floor, cpu} {
					sum[j] += d
				}
				mode = f.Mode
				runDone(b, s)
				b.StartTimer()
			}
			b.StopTimer()
			for j, unit := range []string{"open-ms", "choose-ms", "settle-ms", "encode-ms", "send-ms", "total-ms", "floor-ms", "cpu-ms"} {
				b.ReportMetric(float64(sum[j].Microseconds())/1000/float64(presses), unit)
			}
			b.ReportMetric(0, "ns/op") // wall time includes the agent's run between presses
			b.Logf("mode %dx%d %s %.0f fps", mode.Width, mode.Height, mode.Format, mode.FPS)
		})
	}
}

// processCPU is this process's user + system CPU time so far: on a shared
// machine the wall-clock stages stretch with the load, the CPU spent does
// much less. It includes the agent's goroutines, which mostly run after
// the send.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
