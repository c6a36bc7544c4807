// Hand-written libjpeg-turbo glue for package jpeg; see turbo.go for why no
// existing Go binding is used.

#ifndef ACB_TURBO_H
#define ACB_TURBO_H

#include <stddef.h>
#include <stdint.h>

#define ACB_MSG_LEN 200

// acb_dec describes one decode: inputs set by the caller, outputs by
// acb_decode. Planes are malloc'd by acb_decode and released with
// acb_dec_free, also after a failure.
typedef struct {
	// in
	int k;              // DCT-domain scale numerator: output = ceil(size*k/8)
	int max_err;        // progressive: stop once every kept coefficient is known to within this (dequantized units)
	int max_scans;      // reject files with more scans than this
	long max_pixels;    // reject frames larger than this

	// out
	int width, height;  // frame header dimensions
	int ncomp;          // 1 (gray) or 3 (YCbCr)
	int progressive;    // 1 for a progressive file
	int scans;          // scans decoded (progressive: may stop before the last)
	int warnings;       // corrupt-data warnings libjpeg recovered from
	int pw[3], ph[3];   // plane dimensions
	int stride[3];
	unsigned char *plane[3];  // all three inside one allocation:
	void *region;             // its start, for acb_region_free
	size_t region_len;        // 0: malloc'd; else mmap'd with this length
	char msg[ACB_MSG_LEN];
} acb_dec;

// acb_decode decodes buf (or, when buf is NULL, the file open on fd from
// its current offset) into d->plane at scale d->k/8. It returns 0 on
// success and a negative code with d->msg set on failure.
int acb_decode(const unsigned char *buf, size_t len, int fd, acb_dec *d);
void acb_dec_free(acb_dec *d);
// acb_region_free releases the planes of a successful decode.
void acb_region_free(void *region, size_t len);

// acb_enc describes one encode from planar samples whose rows and columns
// are padded (by edge replication) to whole MCUs. The planes are passed as
// arguments, not fields, because cgo forbids Go pointers inside memory
// handed to C.
typedef struct {
	int width, height;
	int ncomp;                  // 1 or 3
	int hs, vs;                 // luma sampling factors (chroma is 1x1)
	int stride[3];
	unsigned short qt[2][64];   // luma, chroma quantization tables, natural order
	int progressive;
	int baseline_tables;        // limit table entries to 8 bits (always set by Go)

	unsigned char *out;         // malloc'd by libjpeg; free with acb_enc_free
	unsigned long out_len;
	char msg[ACB_MSG_LEN];
} acb_enc;

int acb_encode(acb_enc *e, const unsigned char *y, const unsigned char *cb, const unsigned char *cr);
void acb_enc_free(acb_enc *e);

#endif
