package camera

import (
	"math"
	"time"

	"github.com/pion/mediadevices/pkg/frame"
	"github.com/pion/mediadevices/pkg/prop"
)

// MinLongSide is the smallest long side chooseMode accepts when the
// device offers one that large: the encoder sends at most 1,024 px
// (docs/architecture.md, "Data flow of a photo"), so a larger mode only costs transfer, conversion
// and resampling time without adding a pixel to the photo.
const MinLongSide = 1024

// Per-pixel costs of one frame on the host, used only to rank modes (a
// Raspberry Pi 4 measured about four times the amd64 figures; the ratios
// between them are what matters). Raw Y'CbCr is converted and copied;
// MJPEG is first decoded by mediadevices in Go (image/jpeg), which
// dominates.
const (
	rawNsPerPixel    = 1.5
	mjpegNsPerPixel  = 25
	encodeNsPerPixel = 6   // the resample and quality search of the kept frame, per source pixel
	unknownFPS       = 10  // assumed when the driver does not say: a USB2 webcam's typical worst case
	minFPS           = 0.5 // below this a reported rate is treated as unknown
)

// formatRank orders pixel formats: raw Y'CbCr needs no decode per settle
// frame; MJPEG works but costs a JPEG decode each; depth and RGBA do not
// suit photos here.
func formatRank(p prop.Media) int {
	switch p.FrameFormat {
	case frame.FormatI420, frame.FormatNV12, frame.FormatNV21, frame.FormatYUYV, frame.FormatYUY2, frame.FormatUYVY, frame.FormatI444:
		return 2
	case frame.FormatMJPEG:
		return 1
	}
	return -1
}

// expectedFrames is how many frames a capture reads when exposure is
// already right: the discarded ones, then a window of Stable+1 frames
// spanning StableFor.
func (s Settle) expectedFrames(fps float64) int {
	span := int(math.Ceil((s.StableFor - s.StableFor/10).Seconds() * fps))
	return s.MinFrames + max(s.Stable, span) + 1
}

// pressToFrame estimates the time from stream start to a settled frame in
// mode p plus its encode. The sensor keeps exposing while a frame is
// converted, so each frame costs the longer of its interval and its
// conversion; the last conversion and the one resample/encode come on top.
func pressToFrame(p prop.Media, s Settle) time.Duration {
	fps := float64(p.FrameRate)
	if fps < minFPS {
		fps = unknownFPS
	}
	n := s.expectedFrames(fps)
	px := float64(p.Width * p.Height)
	per := rawNsPerPixel
	if formatRank(p) == 1 {
		per = mjpegNsPerPixel
	}
	ns := float64(n)*max(1e9/fps, per*px) + per*px + encodeNsPerPixel*px
	return time.Duration(ns)
}

// chooseMode picks the capture properties. With a requested size: that
// size if offered, else the nearest in area. Without: among the modes whose
// long side reaches MinLongSide (all modes when none does, then the
// largest), the one with the shortest estimated press-to-frame time
// (pressToFrame), which weighs frame rate against format and size: raw
// where it streams fast, MJPEG where raw crawls (USB2 webcams give raw
// 1080p at 5 fps), and never more pixels than the photo can use. Ties go
// to the smaller mode, then to raw formats.
func chooseMode(props []prop.Media, w, h int, s Settle) (prop.Media, error) {
	s = s.withDefaults()
	usable := props[:0:0]
	for _, p := range props {
		if formatRank(p) >= 0 && p.Width > 0 && p.Height > 0 {
			usable = append(usable, p)
		}
	}
	if len(usable) == 0 {
		return prop.Media{}, ErrNoFormat
	}
	// sizeKey: lower is better; only modes of the best size compete on time.
	sizeKey := func(p prop.Media) int {
		area := p.Width * p.Height
		switch {
		case w > 0 && h > 0:
			if p.Width == w && p.Height == h {
				return -1
			}
			return abs2(area - w*h)
		case max(p.Width, p.Height) >= MinLongSide:
			return 0
		default:
			return math.MaxInt32 / (area + 1) // small modes only when nothing large exists: the largest first (an int is 32 bits on armhf)
		}
	}
	best := usable[0]
	for _, p := range usable[1:] {
		kp, kb := sizeKey(p), sizeKey(best)
		if kp != kb {
			if kp < kb {
				best = p
			}
			continue
		}
		tp, tb := pressToFrame(p, s), pressToFrame(best, s)
		ap, ab := p.Width*p.Height, best.Width*best.Height
		if tp < tb || (tp == tb && (ap < ab || (ap == ab && formatRank(p) > formatRank(best)))) {
			best = p
		}
	}
	return best, nil
}

func abs2(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
