package jpeg

// EXIF orientation (TIFF tag 0x0112) values: how the stored picture must be
// transformed for display. 1 is as stored; 5..8 swap width and height.
//
//	1 none          2 mirror x         3 rotate 180      4 mirror y
//	5 transpose     6 rotate 90 CW     7 transverse      8 rotate 90 CCW

func transposes(orientation int) bool { return orientation >= 5 && orientation <= 8 }

// orientInto writes src transformed by orientation into dst, whose w and h
// are src's after the transform. It runs on the already downscaled picture,
// where it is cheap.
func orientInto(dst *plane, src plane, orientation int) {
	W, H := src.w, src.h
	for y := 0; y < dst.h; y++ {
		out := dst.pix[y*dst.stride : y*dst.stride+dst.w]
		for x := range out {
			var sx, sy int
			switch orientation {
			case 2:
				sx, sy = W-1-x, y
			case 3:
				sx, sy = W-1-x, H-1-y
			case 4:
				sx, sy = x, H-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, H-1-x
			case 7:
				sx, sy = W-1-y, H-1-x
			case 8:
				sx, sy = W-1-y, x
			default:
				sx, sy = x, y
			}
			out[x] = src.pix[sy*src.stride+sx]
		}
	}
}
