// Hand-written separable resampling passes for package jpeg; see resize.go.

#ifndef ACB_RESIZE_H
#define ACB_RESIZE_H

#include <stdint.h>

// acb_resize_v filters columns: dst row y = sum_j w[y*n+j] * src row start[y]+j.
void acb_resize_v(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int width, int dh,
                  const int32_t *start, const int32_t *w, int n, int32_t *acc);

// acb_resize_h filters rows: dst[x] = sum_j w[x*n+j] * src[start[x]+j].
void acb_resize_h(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                  const int32_t *start, const int32_t *w, const int16_t *w16, int n);

// acb_resize_v16 is acb_resize_v keeping ACB_FRAC_BITS fraction bits in
// 16-bit samples, for acb_resize_h16 to finish:
// rounding the intermediate to 8 bits added noise that SSIM sees in smooth
// areas (bench/photo.sh).
#define ACB_FRAC_BITS 6
void acb_resize_v16(const uint8_t *src, int sstride, int16_t *dst, int dstride, int width, int dh,
                    const int32_t *start, const int32_t *w, int n, int32_t *acc);

// acb_resize_h16 is acb_resize_h on acb_resize_v16's output.
void acb_resize_h16(const int16_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                    const int32_t *start, const int16_t *w16, int n);

#endif
