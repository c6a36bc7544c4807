package accept

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/protocol"
	"github.com/agentcall/acbridge/station"
)

// Mean luma bounds of a usable photo (8-bit Y'): below, the picture is
// black (lens cap, no light, a dead sensor); above, it is blown out.
const (
	minLuma = 16.0
	maxLuma = 240.0
)

func (r *runner) cameraSteps() []*step {
	// A ribbon camera's capture runs up to camera.timeout instead of settling.
	settle := max(r.cfg.Camera.SettleTimeout.Duration, r.cfg.Camera.Timeout.Duration)
	return []*step{{id: "camera.capture", group: GroupCamera, interactive: true, timeout: settle + 20*time.Second,
		title:       "a photo is captured, settled and encoded within the 0.1 bounds",
		instruction: "Put an object where a person would show it to the camera; the photo is taken now.",
		timeoutFix:  "the camera delivered no frame in time: reconnect it, check `acbridge photo -o /tmp/x.jpg`, raise camera.settle_timeout",
		run:         r.cameraCapture}}
}

func (r *runner) cameraCapture(ctx context.Context, t *T) error {
	if !r.cfg.Enabled("photo") {
		t.note("the photo modality is not enabled (modalities.enabled); checking the camera anyway")
	}
	c := r.cfg.Camera
	// The daemon's pipeline: what is measured here is what agents get.
	cam, err := station.NewPhoto(c, r.o.Logger)
	if err != nil {
		return failErr(err, "fix the [camera] table (acbridge run --check-config)")
	}
	defer cam.Close()
	t.prompt(ctx, Prompt{Action: ActAim, Text: t.res.Instruction})
	start := time.Now()
	frame, err := cam.Capture(ctx)
	if err != nil {
		return failErr(err, "")
	}
	r.report.Device.Camera = frame.Device
	t.measureDur("capture", time.Since(start))
	t.measure("settleFrames", float64(frame.Discarded), "frames")
	if !frame.Settled {
		t.note("exposure did not settle within %d frames or %v; the last frame was used (raise camera.settle_timeout if photos come out dark)", c.SettleFrames, c.SettleTimeout.Duration)
	}
	luma := frame.MeanLuma
	t.measure("meanLuma", luma, "")
	res, err := cam.Encode(frame)
	if err != nil {
		return failErr(err, "the frame could not be encoded: report this as an acbridge bug, with the camera model")
	}
	// The photo exists only in res from here on: it is shown if asked and
	// dropped at the end of the step in every case.
	defer clear(res.Data)
	t.measureDur("encode", res.EncodeTime)
	t.measure("jpegBytes", float64(res.Image.ByteCount), "bytes")
	t.measure("width", float64(res.Width), "px")
	t.measure("height", float64(res.Height), "px")
	t.measure("quality", float64(res.Quality), "")
	if res.Image.ByteCount > protocol.MaxImageBytes || res.Width > protocol.MaxImagePixels || res.Height > protocol.MaxImagePixels {
		return failf("report this as an acbridge bug", "the JPEG is outside the 0.1 bounds (%d bytes, %dx%d)", res.Image.ByteCount, res.Width, res.Height)
	}
	if err := jpeg.CheckMetadataFree(res.Data); err != nil {
		return failErr(err, "report this as an acbridge bug: photos must leave the device without metadata")
	}
	if err := jpeg.Verify(&res.Image); err != nil {
		return failErr(err, "report this as an acbridge bug: the encoder's JPEG fails the receiver rules")
	}
	if r.o.ShowPath != "" {
		if err := os.WriteFile(r.o.ShowPath, res.Data, 0o600); err != nil {
			return failErr(fmt.Errorf("accept: --show: %w", err), "give --show a path in a directory you may write to")
		}
		t.note("photo written to %s as asked (--show); delete it when done", r.o.ShowPath)
	}
	res.Image.DataBase64 = ""
	switch {
	case luma < minLuma:
		return failf("light the scene as in use, remove the lens cap, check the camera faces the counter; raise camera.settle_timeout if it needs longer to adjust",
			"the photo is black (mean luma %.0f of 255)", luma)
	case luma > maxLuma:
		return failf("turn the camera away from direct light or lamps, or dim the scene's lighting", "the photo is blown out (mean luma %.0f of 255)", luma)
	}
	return nil
}
