package jpeg

import (
	"fmt"

	"github.com/agentcall/acbridge/protocol"
)

// VerifyOutput checks an encoder output by the receiver rules of Verify,
// with the final decode done by libjpeg-turbo at 1/8 scale instead of the
// standard library's full decode. The 1/8 decode still reads every
// entropy-coded coefficient of every block (only the inverse DCT shrinks to
// the DC term), so a stream that fails to decode or ends early fails here
// too; a corrupt-data warning libjpeg would recover from counts as a
// failure. It costs a fraction of Verify's decode, which was a tenth of the
// photo tool's CPU time per picture (bench/photo.sh).
func VerifyOutput(img *protocol.Image) error {
	data, err := protocol.VerifyImageHeaders(img)
	if err != nil {
		return err
	}
	f, info, err := decodeTurbo(data, decodeOpts{k: 1, maxErr: -1, maxScans: maxScans,
		maxPixels: protocol.MaxImagePixels * protocol.MaxImagePixels})
	if err != nil {
		return err
	}
	f.release()
	if info.warnings > 0 {
		return fmt.Errorf("%w: libjpeg found %d corrupt-data problems", ErrBadInput, info.warnings)
	}
	if info.width != img.PixelWidth || info.height != img.PixelHeight {
		return fmt.Errorf("%w: decoded %dx%d px, not the declared %dx%d", ErrBadInput,
			info.width, info.height, img.PixelWidth, img.PixelHeight)
	}
	return nil
}
