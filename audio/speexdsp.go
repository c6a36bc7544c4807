package audio

// A small hand-written binding to libspeexdsp (xiph.org, BSD licence;
// Debian's libspeexdsp-dev): its echo canceller (MDF, a multidelay
// block frequency-domain adaptive filter) and its preprocessor (noise
// suppression and residual echo suppression). No well-kept Go binding
// exists: the few on GitHub are personal repositories without releases,
// and the Go module proxy serves none of them. Only the calls the
// Processor makes are bound.

// #cgo pkg-config: speexdsp
// #include <stdlib.h>
// #include <speex/speex_echo.h>
// #include <speex/speex_preprocess.h>
//
// static int acb_echo_set_rate(SpeexEchoState *st, int rate) {
// 	return speex_echo_ctl(st, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
// }
// static int acb_pre_set_int(SpeexPreprocessState *st, int req, int v) {
// 	return speex_preprocess_ctl(st, req, &v);
// }
// static int acb_pre_set_echo(SpeexPreprocessState *st, SpeexEchoState *echo) {
// 	return speex_preprocess_ctl(st, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
// }
import "C"

import (
	"fmt"
	"unsafe"
)

// speexEcho is one echo canceller state; not safe for concurrent use.
type speexEcho struct {
	st    *C.SpeexEchoState
	frame int
}

// newSpeexEcho makes a canceller for frames of frame samples whose
// adaptive filter spans tail samples (a multiple of frame).
func newSpeexEcho(frame, tail, rate int) (*speexEcho, error) {
	st := C.speex_echo_state_init(C.int(frame), C.int(tail))
	if st == nil {
		return nil, fmt.Errorf("audio: libspeexdsp could not make an echo canceller (frame %d, tail %d)", frame, tail)
	}
	C.acb_echo_set_rate(st, C.int(rate))
	return &speexEcho{st: st, frame: frame}, nil
}

// cancel removes from rec the echo of play (the reference aligned with
// it) into out. All three hold exactly one frame.
func (e *speexEcho) cancel(rec, play, out []int16) {
	C.speex_echo_cancellation(e.st,
		(*C.spx_int16_t)(unsafe.Pointer(&rec[0])),
		(*C.spx_int16_t)(unsafe.Pointer(&play[0])),
		(*C.spx_int16_t)(unsafe.Pointer(&out[0])))
}

// reset forgets the learnt echo path (after the alignment moved).
func (e *speexEcho) reset() { C.speex_echo_state_reset(e.st) }

func (e *speexEcho) destroy() {
	if e != nil && e.st != nil {
		C.speex_echo_state_destroy(e.st)
		e.st = nil
	}
}

// speexPre is one preprocessor state; not safe for concurrent use.
type speexPre struct {
	st *C.SpeexPreprocessState
}

// newSpeexPre makes a preprocessor. With echo set it also suppresses the
// residual echo the linear filter left; denoise turns noise suppression
// on. libspeexdsp computes the residual echo suppression in its
// denoiser, so the denoiser runs whenever either is wanted, with its
// noise attenuation at 0 dB when only the echo is to go. AGC and
// dereverberation stay off: gain is the operator's choice
// (audio.mic_gain_db), and the agent does its own speech detection.
func newSpeexPre(frame, rate int, echo *speexEcho, denoise bool) (*speexPre, error) {
	st := C.speex_preprocess_state_init(C.int(frame), C.int(rate))
	if st == nil {
		return nil, fmt.Errorf("audio: libspeexdsp could not make a preprocessor (frame %d)", frame)
	}
	C.acb_pre_set_int(st, C.SPEEX_PREPROCESS_SET_DENOISE, 1)
	if !denoise {
		C.acb_pre_set_int(st, C.SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, 0)
	}
	C.acb_pre_set_int(st, C.SPEEX_PREPROCESS_SET_AGC, 0)
	C.acb_pre_set_int(st, C.SPEEX_PREPROCESS_SET_DEREVERB, 0)
	if echo != nil {
		C.acb_pre_set_echo(st, echo.st)
	}
	return &speexPre{st: st}, nil
}

// run processes one frame in place.
func (p *speexPre) run(x []int16) {
	C.speex_preprocess_run(p.st, (*C.spx_int16_t)(unsafe.Pointer(&x[0])))
}

func (p *speexPre) destroy() {
	if p != nil && p.st != nil {
		C.speex_preprocess_state_destroy(p.st)
		p.st = nil
	}
}
