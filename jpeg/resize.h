// Hand-written separable resampling passes for package jpeg; see resize.go.

#ifndef ACB_RESIZE_H
#define ACB_RESIZE_H

#include <stdint.h>

// Which loops an acb_resize_* call runs (its impl argument). Every choice
// gives the same bytes; tests compare them (resize_avx2_test.go).
#define ACB_IMPL_BEST 0     // AVX2 when the CPU has it, else the portable C
#define ACB_IMPL_PORTABLE 1 // the C loops gcc vectorizes
#define ACB_IMPL_AVX2 2     // hand-written AVX2; portable where acb_resize_has_avx2 is 0

// acb_resize_has_avx2 reports whether ACB_IMPL_AVX2 runs the AVX2 loops:
// amd64 builds on a CPU (and kernel) with AVX2.
int acb_resize_has_avx2(void);

// acb_resize_v filters columns: dst row y = sum_j w[y*n+j] * src row start[y]+j.
void acb_resize_v(int impl, const uint8_t *src, int sstride, uint8_t *dst, int dstride, int width, int dh,
                  const int32_t *start, const int32_t *w, int n, int32_t *acc);

// acb_resize_h filters rows: dst[x] = sum_j w[x*n+j] * src[start[x]+j].
void acb_resize_h(int impl, const uint8_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                  const int32_t *start, const int32_t *w, const int16_t *w16, int n);

// acb_resize_v16 is acb_resize_v keeping ACB_FRAC_BITS fraction bits in
// 16-bit samples, for acb_resize_h16 to finish:
// rounding the intermediate to 8 bits added noise that SSIM sees in smooth
// areas (bench/photo.sh).
#define ACB_FRAC_BITS 6
void acb_resize_v16(int impl, const uint8_t *src, int sstride, int16_t *dst, int dstride, int width, int dh,
                    const int32_t *start, const int32_t *w, int n, int32_t *acc);

// acb_resize_h16 is acb_resize_h on acb_resize_v16's output.
void acb_resize_h16(int impl, const int16_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                    const int32_t *start, const int16_t *w16, int n);

// The portable loops (resize.c), with the arguments above minus impl.
void acb_resize_v_c(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int width, int dh,
                    const int32_t *start, const int32_t *w, int n, int32_t *acc);
void acb_resize_h_c(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                    const int32_t *start, const int32_t *w, const int16_t *w16, int n);
void acb_resize_v16_c(const uint8_t *src, int sstride, int16_t *dst, int dstride, int width, int dh,
                      const int32_t *start, const int32_t *w, int n, int32_t *acc);
void acb_resize_h16_c(const int16_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                      const int32_t *start, const int16_t *w16, int n);

// The AVX2 loops (resize_avx2.c, amd64 only): one function for both
// vertical passes (out16 1 for acb_resize_v16's output, 0 for
// acb_resize_v's) and one for both horizontal ones (u8 1 for
// acb_resize_h's byte samples, 0 for acb_resize_h16's). Each returns 0,
// having done nothing, for shapes it does not cover (planes narrower than a
// block, kernels of other than a multiple of 8 taps or very long ones),
// which the portable loops then take.
#if defined(__x86_64__) && defined(__GNUC__)
#define ACB_RESIZE_AVX2 1
int acb_resize_v_avx2(const uint8_t *src, int sstride, void *dst, int dstride, int width, int dh,
                      const int32_t *start, const int32_t *w, int n, int out16);
int acb_resize_h_avx2(const void *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                      const int32_t *start, const int16_t *w16, int n, int u8);
#endif

#endif
