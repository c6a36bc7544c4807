package camera

import (
	"errors"
	"testing"

	"github.com/pion/mediadevices/pkg/frame"
	"github.com/pion/mediadevices/pkg/prop"

	"github.com/agentcall/acbridge/camera/cameratest"
)

// The mode lists are those of common UVC webcams (v4l2-ctl --list-formats-ext).
func TestChooseMode(t *testing.T) {
	m := cameratest.Mode
	const yuyv, mjpg = frame.FormatYUYV, frame.FormatMJPEG
	cases := []struct {
		name  string
		props []prop.Media
		w, h  int
		want  prop.Media
	}{
		{"USB2 webcam: raw 1080p crawls, MJPEG 720p streams", []prop.Media{
			m(640, 480, yuyv, 30), m(1280, 720, yuyv, 10), m(1920, 1080, yuyv, 5),
			m(1280, 720, mjpg, 30), m(1920, 1080, mjpg, 30), m(1280, 720, frame.FormatZ16, 30),
		}, 0, 0, m(1280, 720, mjpg, 30)},
		{"raw fast enough at the smallest size that serves", []prop.Media{
			m(1280, 720, yuyv, 30), m(1280, 720, mjpg, 30), m(1920, 1080, yuyv, 30), m(3840, 2160, mjpg, 30),
		}, 0, 0, m(1280, 720, yuyv, 30)},
		{"4K camera: never more pixels than needed", []prop.Media{
			m(3840, 2160, mjpg, 30), m(1920, 1080, mjpg, 30), m(1024, 768, mjpg, 30), m(800, 600, yuyv, 30),
		}, 0, 0, m(1024, 768, mjpg, 30)},
		{"below 1024 px only when nothing larger exists, then the largest", []prop.Media{
			m(320, 240, yuyv, 30), m(800, 600, yuyv, 15), m(640, 480, yuyv, 30),
		}, 0, 0, m(800, 600, yuyv, 15)},
		{"a raw mode at 1 fps loses to MJPEG even at twice the size", []prop.Media{
			m(1280, 960, yuyv, 1), m(2592, 1944, mjpg, 15),
		}, 0, 0, m(2592, 1944, mjpg, 15)},
		{"unknown frame rate ranks as slow", []prop.Media{
			m(1280, 720, yuyv, 0), m(1280, 720, mjpg, 30),
		}, 0, 0, m(1280, 720, mjpg, 30)},
		{"portrait sensor: the long side counts", []prop.Media{
			m(720, 1280, yuyv, 30), m(480, 640, yuyv, 30), m(1080, 1920, yuyv, 30),
		}, 0, 0, m(720, 1280, yuyv, 30)},
		{"requested size wins over speed", []prop.Media{
			m(1280, 720, mjpg, 30), m(1920, 1080, yuyv, 5), m(1920, 1080, mjpg, 30),
		}, 1920, 1080, m(1920, 1080, mjpg, 30)},
		{"requested size absent: nearest area", []prop.Media{
			m(640, 480, yuyv, 30), m(1280, 720, yuyv, 10), m(1920, 1080, yuyv, 5),
		}, 1280, 800, m(1280, 720, yuyv, 10)},
	}
	for _, c := range cases {
		got, err := chooseMode(c.props, c.w, c.h, Settle{})
		if err != nil || got.Video != c.want.Video {
			t.Errorf("%s: got %+v (%v), want %+v", c.name, got.Video, err, c.want.Video)
		}
	}
	if _, err := chooseMode([]prop.Media{m(1280, 720, frame.FormatZ16, 30)}, 0, 0, Settle{}); !errors.Is(err, ErrNoFormat) {
		t.Errorf("depth only: %v", err)
	}
	if _, err := chooseMode(nil, 0, 0, Settle{}); !errors.Is(err, ErrNoFormat) {
		t.Errorf("no modes: %v", err)
	}
}
