// Resampling inner loops, written by hand in C because the Go compiler does
// not vectorize them and gcc does (SSE2 on amd64, NEON on arm64): they are
// most of the encoder's time on a Raspberry Pi. Weights come from Go
// (makeKernel), in 1/16384 units summing to exactly 16384.

#include "resize.h"

// On amd64 each loop is also built for AVX2, picked at load time (an
// ifunc): twice the lanes of the SSE2 baseline on any x86 made since 2013,
// which measured ~35% less resampling time on a 2.3 MP wallpaper
// (BenchmarkResizePlanes). arm64 builds use NEON as before. CPUs with AVX2
// run the hand-written loops of resize_avx2.c instead (see the dispatch at
// the end); these stay the reference and the fallback.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ACB_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ACB_CLONES
#endif

static inline uint8_t clamp8(int32_t v) {
	v = (v + 8192) >> 14;
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

ACB_CLONES
void acb_resize_v_c(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int width, int dh,
                    const int32_t *start, const int32_t *w, int n, int32_t *acc) {
	for (int y = 0; y < dh; y++) {
		const int32_t *wy = w + (long)y * n;
		for (int x = 0; x < width; x++)
			acc[x] = 0;
		for (int j = 0; j < n; j++) {
			// 16-bit operands with a 32-bit product: the widening multiply
			// gcc maps to pmullw/pmulhw (SSE2) and smull (NEON).
			int16_t wt = (int16_t)wy[j];
			if (wt == 0)
				continue;
			const uint8_t *row = src + (long)(start[y] + j) * sstride;
			for (int x = 0; x < width; x++)
				acc[x] += (int32_t)(int16_t)row[x] * (int32_t)wt;
		}
		uint8_t *out = dst + (long)y * dstride;
		for (int x = 0; x < width; x++)
			out[x] = clamp8(acc[x]);
	}
}

ACB_CLONES
void acb_resize_h_c(const uint8_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                    const int32_t *start, const int32_t *w, const int16_t *w16, int n) {
	for (int y = 0; y < rows; y++) {
		const uint8_t *in = src + (long)y * sstride;
		uint8_t *out = dst + (long)y * dstride;
		if (n % 8 == 0) {
			// Kernels padded to a multiple of 8 taps: gcc turns this
			// reduction into pmaddwd (SSE2) / smlal (NEON).
			for (int x = 0; x < dw; x++) {
				const uint8_t *p = in + start[x];
				const int16_t *wx = w16 + (long)x * n;
				int32_t acc = 0;
				for (int j = 0; j < n; j++)
					acc += (int32_t)(int16_t)p[j] * (int32_t)wx[j];
				out[x] = clamp8(acc);
			}
			continue;
		}
		for (int x = 0; x < dw; x++) {
			const uint8_t *p = in + start[x];
			const int32_t *wx = w + (long)x * n;
			int32_t acc = 0;
			for (int j = 0; j < n; j++)
				acc += (int32_t)p[j] * wx[j];
			out[x] = clamp8(acc);
		}
	}
}

ACB_CLONES
void acb_resize_v16_c(const uint8_t *src, int sstride, int16_t *dst, int dstride, int width, int dh,
                      const int32_t *start, const int32_t *w, int n, int32_t *acc) {
	const int shift = 14 - ACB_FRAC_BITS;
	for (int y = 0; y < dh; y++) {
		const int32_t *wy = w + (long)y * n;
		for (int x = 0; x < width; x++)
			acc[x] = 0;
		for (int j = 0; j < n; j++) {
			int16_t wt = (int16_t)wy[j];
			if (wt == 0)
				continue;
			const uint8_t *row = src + (long)(start[y] + j) * sstride;
			for (int x = 0; x < width; x++)
				acc[x] += (int32_t)(int16_t)row[x] * (int32_t)wt;
		}
		// Clamped to the 8-bit range like the single-pass output: the
		// overshoot kept through the second pass showed as ringing at
		// hard corners (butteraugli worse on Storm and YellowFlower).
		const int32_t top = 255 << ACB_FRAC_BITS;
		int16_t *out = dst + (long)y * dstride;
		for (int x = 0; x < width; x++) {
			int32_t v = (acc[x] + (1 << (shift - 1))) >> shift;
			out[x] = (int16_t)(v < 0 ? 0 : v > top ? top : v);
		}
	}
}

ACB_CLONES
void acb_resize_h16_c(const int16_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                      const int32_t *start, const int16_t *w16, int n) {
	const int shift = 14 + ACB_FRAC_BITS;
	for (int y = 0; y < rows; y++) {
		const int16_t *in = src + (long)y * sstride;
		uint8_t *out = dst + (long)y * dstride;
		for (int x = 0; x < dw; x++) {
			const int16_t *p = in + start[x];
			const int16_t *wx = w16 + (long)x * n;
			// int32 cannot wrap: 0 <= sample < 2^14 and makeKernel's
			// normalised Lanczos-3 weights sum in absolute value to under
			// 1.3 * 2^14, so |acc| < 2^29. pmaddwd/smlal territory.
			int32_t acc = 0;
			for (int j = 0; j < n; j++)
				acc += (int32_t)p[j] * (int32_t)wx[j];
			int32_t v = (acc + (1 << (shift - 1))) >> shift;
			out[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
	}
}

// The dispatch: the AVX2 loops keep their accumulators in registers over
// all taps and multiply two taps per instruction, which gcc's
// vectorization of the loops above does not find.

#ifdef ACB_RESIZE_AVX2
static int have_avx2;

// A constructor, so the check happens once, before any thread can call.
__attribute__((constructor)) static void acb_resize_init(void) {
	__builtin_cpu_init();
	have_avx2 = __builtin_cpu_supports("avx2");
}

int acb_resize_has_avx2(void) { return have_avx2; }

// AVX2_DID runs an AVX2 loop when impl allows it and the CPU has AVX2,
// and says whether that loop did the work.
#define AVX2_DID(impl, call) (have_avx2 && (impl) != ACB_IMPL_PORTABLE && (call))
#else
int acb_resize_has_avx2(void) { return 0; }
#define AVX2_DID(impl, call) ((void)(impl), 0)
#endif

void acb_resize_v(int impl, const uint8_t *src, int sstride, uint8_t *dst, int dstride, int width, int dh,
                  const int32_t *start, const int32_t *w, int n, int32_t *acc) {
	if (!AVX2_DID(impl, acb_resize_v_avx2(src, sstride, dst, dstride, width, dh, start, w, n, 0)))
		acb_resize_v_c(src, sstride, dst, dstride, width, dh, start, w, n, acc);
}

void acb_resize_h(int impl, const uint8_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                  const int32_t *start, const int32_t *w, const int16_t *w16, int n) {
	if (!AVX2_DID(impl, acb_resize_h_avx2(src, sstride, dst, dstride, dw, rows, start, w16, n, 1)))
		acb_resize_h_c(src, sstride, dst, dstride, dw, rows, start, w, w16, n);
}

void acb_resize_v16(int impl, const uint8_t *src, int sstride, int16_t *dst, int dstride, int width, int dh,
                    const int32_t *start, const int32_t *w, int n, int32_t *acc) {
	if (!AVX2_DID(impl, acb_resize_v_avx2(src, sstride, dst, dstride, width, dh, start, w, n, 1)))
		acb_resize_v16_c(src, sstride, dst, dstride, width, dh, start, w, n, acc);
}

void acb_resize_h16(int impl, const int16_t *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                    const int32_t *start, const int16_t *w16, int n) {
	if (!AVX2_DID(impl, acb_resize_h_avx2(src, sstride, dst, dstride, dw, rows, start, w16, n, 0)))
		acb_resize_h16_c(src, sstride, dst, dstride, dw, rows, start, w16, n);
}
