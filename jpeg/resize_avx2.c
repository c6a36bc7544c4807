// AVX2 versions of resize.c's loops, chosen at run time by its dispatch.
// They give the same bytes as the portable loops: every sum is an exact
// integer that cannot overflow int32 (see acb_resize_h16_c), so the
// order of the additions does not matter, and the rounding, shifts and
// clamps are the same. resize_avx2_test.go checks it on random planes and
// kernels.

#include "resize.h"

#ifdef ACB_RESIZE_AVX2

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

// Columns per block of the vertical pass: four accumulators of eight
// sums stay in registers over all taps, where the portable loop loads and
// stores its acc[] array once per tap.
#define VBLOCK 32

// Taps in one vertical block: a pair of taps' weights is broadcast from
// this many precomputed words (on the stack); longer kernels (a reduction
// by more than ~20x) take the portable loop.
#define VMAXTAPS 128

// live_taps narrows [0, n) to the taps with a nonzero weight: makeKernel
// pads kernels to a multiple of 8 taps with up to 7 zeros (a 25-tap
// reduction by 4 runs 32).
static void live_taps(const int32_t *w, int n, int *lo, int *hi) {
	int a = 0, b = n;
	while (a < b && (int16_t)w[a] == 0)
		a++;
	while (b > a && (int16_t)w[b - 1] == 0)
		b--;
	*lo = a;
	*hi = b;
}

// pair_weights packs taps (j, j+1) as the two int16 halves of one word,
// low half first: the layout pmaddwd multiplies a (row j, row j+1)
// sample pair by. An odd last tap pairs with a zero weight.
static void pair_weights(const int32_t *w, int lo, int hi, int32_t *pw) {
	for (int j = lo, k = 0; j < hi; j += 2, k++) {
		uint32_t a = (uint16_t)(int16_t)w[j];
		uint32_t b = j + 1 < hi ? (uint16_t)(int16_t)w[j + 1] : 0;
		pw[k] = (int32_t)(a | b << 16);
	}
}

// vmac adds one tap pair of 32 columns (rows r0 and r1, weights wp) to
// acc: four vectors of eight int32 sums, columns interleaved as
// 0-3|16-19, 4-7|20-23, 8-11|24-27, 12-15|28-31 (pmaddwd on unpacked
// bytes keeps each 128-bit lane apart). The packs that finish the pass
// undo the interleave.
AVX2 static inline void vmac(__m256i acc[4], __m256i r0, __m256i r1, __m256i wp) {
	const __m256i z = _mm256_setzero_si256();
	__m256i lo8 = _mm256_unpacklo_epi8(r0, r1), hi8 = _mm256_unpackhi_epi8(r0, r1);
	acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(_mm256_unpacklo_epi8(lo8, z), wp));
	acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(_mm256_unpackhi_epi8(lo8, z), wp));
	acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(_mm256_unpacklo_epi8(hi8, z), wp));
	acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(_mm256_unpackhi_epi8(hi8, z), wp));
}

// vblock sums taps lo..hi-1 of the 32 columns starting at row into acc
// (vmac's layout).
AVX2 static inline void vblock(const uint8_t *row, long sstride, int lo, int hi, const int32_t *pw,
                               __m256i acc[4]) {
	acc[0] = acc[1] = acc[2] = acc[3] = _mm256_setzero_si256();
	const uint8_t *p = row + lo * sstride;
	int j = lo;
	for (; j + 1 < hi; j += 2, p += 2 * sstride)
		vmac(acc, _mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)(p + sstride)),
		     _mm256_set1_epi32(pw[(j - lo) >> 1]));
	// An odd last tap pairs with zeros, not with the row past the kernel,
	// which may be outside the plane; its partner weight is zero anyway.
	if (j < hi)
		vmac(acc, _mm256_loadu_si256((const __m256i *)p), _mm256_setzero_si256(),
		     _mm256_set1_epi32(pw[(j - lo) >> 1]));
}

// vround adds half of 2^shift and shifts, as the portable loops do.
AVX2 static inline __m256i vround(__m256i v, int shift) {
	return _mm256_srai_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(1 << (shift - 1))), shift);
}

// vpass runs the vertical pass; out16 picks acb_resize_v16's output
// (int16 with fraction bits, clamped to [0, 255 << ACB_FRAC_BITS]) over
// acb_resize_v's (clamped bytes). Saturating packs clamp like the
// portable loops: a value past int16 saturates and then clamps the same.
AVX2 static inline void vpass(const uint8_t *src, int sstride, void *dst, int dstride, int width, int dh,
                              const int32_t *start, const int32_t *w, int n, int out16) {
	const int shift = out16 ? 14 - ACB_FRAC_BITS : 14;
	const __m256i top = _mm256_set1_epi16(255 << ACB_FRAC_BITS), z = _mm256_setzero_si256();
	int32_t pw[VMAXTAPS / 2];
	for (int y = 0; y < dh; y++) {
		int lo, hi;
		live_taps(w + (long)y * n, n, &lo, &hi);
		pair_weights(w + (long)y * n, lo, hi, pw);
		const uint8_t *rows = src + (long)start[y] * sstride;
		// The last block overlaps the one before rather than leaving a
		// scalar tail: it rewrites a few columns with the same values.
		for (int x = 0;; x += VBLOCK) {
			if (x > width - VBLOCK)
				x = width - VBLOCK;
			__m256i a[4];
			vblock(rows + x, sstride, lo, hi, pw, a);
			__m256i p01 = _mm256_packs_epi32(vround(a[0], shift), vround(a[1], shift)); // 0-7|16-23
			__m256i p23 = _mm256_packs_epi32(vround(a[2], shift), vround(a[3], shift)); // 8-15|24-31
			if (out16) {
				p01 = _mm256_min_epi16(_mm256_max_epi16(p01, z), top);
				p23 = _mm256_min_epi16(_mm256_max_epi16(p23, z), top);
				int16_t *out = (int16_t *)dst + (long)y * dstride + x;
				_mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(p01, p23, 0x20));
				_mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(p01, p23, 0x31));
			} else {
				uint8_t *out = (uint8_t *)dst + (long)y * dstride + x;
				_mm256_storeu_si256((__m256i *)out, _mm256_packus_epi16(p01, p23));
			}
			if (x == width - VBLOCK)
				break;
		}
	}
}

// vpass_fits reports whether vpass covers the shape: a plane at least one
// block wide and kernels whose live taps fit pw.
static int vpass_fits(int width, int dh, const int32_t *w, int n) {
	if (width < VBLOCK)
		return 0;
	if (n <= VMAXTAPS)
		return 1;
	for (int y = 0; y < dh; y++) {
		int lo, hi;
		live_taps(w + (long)y * n, n, &lo, &hi);
		if (hi - lo > VMAXTAPS)
			return 0;
	}
	return 1;
}

// acb_resize_v_avx2 is acb_resize_v16 (out16 1) or acb_resize_v (0).
AVX2 int acb_resize_v_avx2(const uint8_t *src, int sstride, void *dst, int dstride, int width, int dh,
                           const int32_t *start, const int32_t *w, int n, int out16) {
	if (!vpass_fits(width, dh, w, n))
		return 0;
	if (out16)
		vpass(src, sstride, dst, dstride, width, dh, start, w, n, 1);
	else
		vpass(src, sstride, dst, dstride, width, dh, start, w, n, 0);
	return 1;
}

// hload8 loads 8 samples as int16: bytes are zero-extended.
AVX2 static inline __m128i hload8(const void *p, int u8) {
	if (u8)
		return _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)p));
	return _mm_loadu_si128((const __m128i *)p);
}

AVX2 static inline __m256i hload16(const void *p, int u8) {
	if (u8)
		return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
	return _mm256_loadu_si256((const __m256i *)p);
}

// hdot returns the n-tap products of one output summed into eight int32
// lanes (n a multiple of 8; the loads stay inside the kernel's window,
// which makeKernel keeps inside the row).
AVX2 static inline __m256i hdot(const uint8_t *p, int esize, const int16_t *wx, int n, int u8) {
	__m256i v = _mm256_setzero_si256();
	int j = 0;
	for (; j + 16 <= n; j += 16)
		v = _mm256_add_epi32(v, _mm256_madd_epi16(hload16(p + j * esize, u8),
		                                          _mm256_loadu_si256((const __m256i *)(wx + j))));
	if (j < n) {
		__m128i t = _mm_madd_epi16(hload8(p + j * esize, u8), _mm_loadu_si128((const __m128i *)(wx + j)));
		v = _mm256_add_epi32(v, _mm256_inserti128_si256(_mm256_setzero_si256(), t, 0));
	}
	return v;
}

// hsum8 sums each of v[0..7] into one lane, in order: three rounds of
// phaddd and one lane fold instead of eight horizontal sums.
AVX2 static inline __m256i hsum8(const __m256i v[8]) {
	__m256i q0 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
	__m256i q1 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
	return _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
}

// hsum8_n8 is hdot and hsum8 for 8-tap kernels: outputs 2k and 2k+1 share
// one pmaddwd (their weights are adjacent), and a final permute restores
// the order.
AVX2 static inline __m256i hsum8_n8(const uint8_t *in, int esize, const int32_t *start, const int16_t *wx, int u8) {
	__m256i v[4];
	for (int k = 0; k < 4; k++) {
		__m256i s = _mm256_inserti128_si256(_mm256_castsi128_si256(hload8(in + start[2 * k] * esize, u8)),
		                                    hload8(in + start[2 * k + 1] * esize, u8), 1);
		v[k] = _mm256_madd_epi16(s, _mm256_loadu_si256((const __m256i *)(wx + 16 * k)));
	}
	__m256i q = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
	return _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// hrow filters one row eight outputs at a time on int16 (u8 0) or byte
// (u8 1) samples, rounding away shift bits and clamping to bytes. It is
// inlined with constant n for the common kernels, so that the taps and
// the eight outputs unroll into straight code.
AVX2 static inline __attribute__((always_inline)) void hrow(const uint8_t *in, uint8_t *out, int dw,
                                                            const int32_t *start, const int16_t *w16, int n,
                                                            int u8, int shift) {
	const int esize = u8 ? 1 : 2;
	// The last group overlaps the one before, like vpass's blocks.
	for (int x = 0;; x += 8) {
		if (x > dw - 8)
			x = dw - 8;
		const int16_t *wx = w16 + (long)x * n;
		__m256i s;
		if (n == 8) {
			s = hsum8_n8(in, esize, start + x, wx, u8);
		} else {
			__m256i v[8];
#pragma GCC unroll 8
			for (int i = 0; i < 8; i++)
				v[i] = hdot(in + start[x + i] * esize, esize, wx + i * n, n, u8);
			s = hsum8(v);
		}
		s = vround(s, shift);
		__m128i p = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
		_mm_storel_epi64((__m128i *)(out + x), _mm_packus_epi16(p, p));
		if (x == dw - 8)
			break;
	}
}

// hpass runs hrow over the rows; n is a multiple of 8 and dw >= 8.
AVX2 static inline __attribute__((always_inline)) void hpass(const void *src, int sstride, uint8_t *dst,
                                                             int dstride, int dw, int rows,
                                                             const int32_t *start, const int16_t *w16, int n,
                                                             int u8, int shift) {
	const int esize = u8 ? 1 : 2;
	for (int y = 0; y < rows; y++) {
		const uint8_t *in = (const uint8_t *)src + (long)y * sstride * esize;
		uint8_t *out = dst + (long)y * dstride;
		// Kernels of 8 to 32 taps: upscales to reductions by ~5.
		switch (n) {
		case 8:
			hrow(in, out, dw, start, w16, 8, u8, shift);
			break;
		case 16:
			hrow(in, out, dw, start, w16, 16, u8, shift);
			break;
		case 24:
			hrow(in, out, dw, start, w16, 24, u8, shift);
			break;
		case 32:
			hrow(in, out, dw, start, w16, 32, u8, shift);
			break;
		default:
			hrow(in, out, dw, start, w16, n, u8, shift);
		}
	}
}

// acb_resize_h_avx2 is acb_resize_h16 (u8 0) or acb_resize_h (1).
AVX2 int acb_resize_h_avx2(const void *src, int sstride, uint8_t *dst, int dstride, int dw, int rows,
                           const int32_t *start, const int16_t *w16, int n, int u8) {
	if (n % 8 != 0 || dw < 8)
		return 0;
	if (u8)
		hpass(src, sstride, dst, dstride, dw, rows, start, w16, n, 1, 14);
	else
		hpass(src, sstride, dst, dstride, dw, rows, start, w16, n, 0, 14 + ACB_FRAC_BITS);
	return 1;
}

#else

// Other architectures build the portable loops only.
typedef int acb_resize_avx2_unused;

#endif
