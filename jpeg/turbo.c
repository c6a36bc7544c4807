// libjpeg-turbo glue for package jpeg, written by hand (see turbo.go):
// decoding straight to planes at a DCT-domain scale, encoding from planes
// with caller-supplied tables and no metadata segments. The compact store
// for progressive files is in store.c. Errors longjmp back to the entry
// points; libjpeg never prints.

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

#include "turbo_int.h"

static void acb_error_exit(j_common_ptr c) {
	acb_err *e = (acb_err *)c->err;
	longjmp(e->jb, 1);
}

static void acb_output_message(j_common_ptr c) { (void)c; }

static void acb_emit_message(j_common_ptr c, int level) {
	if (level < 0)
		((acb_err *)c->err)->warnings++;
}

static void acb_err_init(acb_err *e) {
	jpeg_std_error(&e->pub);
	e->pub.error_exit = acb_error_exit;
	e->pub.output_message = acb_output_message;
	e->pub.emit_message = acb_emit_message;
	e->warnings = 0;
}

static void acb_set_msg(char *dst, j_common_ptr c) {
	char buf[JMSG_LENGTH_MAX];
	(*c->err->format_message)(c, buf);
	snprintf(dst, ACB_MSG_LEN, "%s", buf);
}

// Zigzag position -> natural (row-major) position.
const int acb_zz[64] = {
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

// ---- decode -----------------------------------------------------------

// scan_limit stops files with absurdly many scans (each rereads the whole
// coefficient buffer: a few KB can cost seconds). libjpeg calls it while
// absorbing input.
static void scan_limit(j_common_ptr c) {
	j_decompress_ptr d = (j_decompress_ptr)c;
	acb_progress *p = (acb_progress *)c->progress;
	if (d->input_scan_number > p->max_scans) {
		p->exceeded = 1;
		(*c->err->error_exit)(c);
	}
}

static int check_header(j_decompress_ptr d, acb_dec *o) {
	o->width = (int)d->image_width;
	o->height = (int)d->image_height;
	o->ncomp = d->num_components;
	o->progressive = d->progressive_mode ? 1 : 0;
	if (!((d->num_components == 1 && d->jpeg_color_space == JCS_GRAYSCALE) ||
	      (d->num_components == 3 && d->jpeg_color_space == JCS_YCbCr))) {
		snprintf(o->msg, ACB_MSG_LEN, "unsupported color space (%d components)", d->num_components);
		return -2;
	}
	if ((long long)d->image_width * (long long)d->image_height > (long long)o->max_pixels) { /* long is 32-bit on armhf */
		snprintf(o->msg, ACB_MSG_LEN, "%ux%u pixels exceeds the input limit", d->image_width, d->image_height);
		return -3;
	}
	return 0;
}

// Planes of HUGE_MIN bytes or more together go into transparent huge pages
// where the kernel offers them (THP "madvise" mode, Debian's default): the
// decode writes every byte once, and faulting it in 4 KB at a time cost
// ~2 us a page, page faults being the largest single cost of `acbridge
// photo` on a wallpaper (~1,000 fewer on a 2.3 MP photo; a 2 MB rounding
// of the peak RSS at most).
#define HUGE_PAGE (2UL << 20)
#define HUGE_MIN HUGE_PAGE

static void *alloc_region(size_t n, size_t *mapped) {
	*mapped = 0;
	if (n < HUGE_MIN)
		return calloc(n, 1);
	size_t len = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	unsigned char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return calloc(n, 1);
	// Align to a huge page and give back the slack on both sides.
	unsigned char *a = (unsigned char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	if (a + len < m + len + HUGE_PAGE)
		munmap(a + len, (size_t)(m + len + HUGE_PAGE - (a + len)));
	(void)madvise(a, len, MADV_HUGEPAGE); // a hint: 4 KB pages where refused
	*mapped = len;
	return a;
}

void acb_region_free(void *region, size_t len) {
	if (len > 0)
		munmap(region, len);
	else
		free(region);
}

int acb_alloc_planes(acb_dec *o, int ncomp, const int *pw, const int *ph, const int *alloc_w,
                        const int *alloc_h) {
	size_t off[3], total = 0;
	for (int c = 0; c < ncomp; c++) {
		o->pw[c] = pw[c];
		o->ph[c] = ph[c];
		o->stride[c] = alloc_w[c];
		off[c] = total;
		// +1: a byte past the last row for readers that overrun by one;
		// rounded to 64 so each plane starts cache-line aligned.
		total += ((size_t)alloc_w[c] * (size_t)alloc_h[c] + 1 + 63) & ~(size_t)63;
	}
	unsigned char *r = alloc_region(total, &o->region_len);
	if (r == NULL)
		return -1;
	o->region = r;
	for (int c = 0; c < ncomp; c++)
		o->plane[c] = r + off[c];
	return 0;
}

static int decode_sequential(dec_ctx *x, acb_dec *o) {
	j_decompress_ptr d = &x->d;
	d->scale_num = (unsigned int)o->k;
	d->scale_denom = 8;
	d->raw_data_out = TRUE;
	d->dct_method = JDCT_ISLOW;
	d->do_block_smoothing = FALSE;
	jpeg_start_decompress(d);
	int pw[3], ph[3], aw[3], ah[3], rows_per[3];
	for (int c = 0; c < d->num_components; c++) {
		jpeg_component_info *cp = &d->comp_info[c];
		int ds = cp->DCT_scaled_size;
		pw[c] = (int)cp->downsampled_width;
		ph[c] = (int)cp->downsampled_height;
		rows_per[c] = cp->v_samp_factor * ds;
		aw[c] = (int)(cp->width_in_blocks + (JDIMENSION)cp->h_samp_factor) * ds;
		ah[c] = (int)d->total_iMCU_rows * rows_per[c];
		if (rows_per[c] > 64) {
			snprintf(o->msg, ACB_MSG_LEN, "unsupported sampling factors");
			return -1;
		}
	}
	if (acb_alloc_planes(o, d->num_components, pw, ph, aw, ah) != 0) {
		snprintf(o->msg, ACB_MSG_LEN, "out of memory");
		return -1;
	}
	JSAMPROW rows[3][64];
	JSAMPARRAY arr[3] = {rows[0], rows[1], rows[2]};
	JDIMENSION lines = (JDIMENSION)(d->max_v_samp_factor * d->min_DCT_scaled_size);
	for (JDIMENSION r = 0; r < d->total_iMCU_rows; r++) {
		for (int c = 0; c < d->num_components; c++)
			for (int j = 0; j < rows_per[c]; j++)
				rows[c][j] = o->plane[c] + ((size_t)r * rows_per[c] + j) * o->stride[c];
		if (jpeg_read_raw_data(d, arr, lines) == 0) {
			snprintf(o->msg, ACB_MSG_LEN, "decoder made no progress");
			return -1;
		}
	}
	o->scans = 1;
	return 0;
}

int acb_decode(const unsigned char *buf, size_t len, int fd, acb_dec *o) {
	FILE *fp = NULL;
	dec_ctx *x = calloc(1, sizeof(*x));
	if (x == NULL) {
		snprintf(o->msg, ACB_MSG_LEN, "out of memory");
		return -1;
	}
	int rc = 0;
	acb_err_init(&x->err);
	x->d.err = &x->err.pub;
	if (o->k < 1 || o->k > 8) {
		snprintf(o->msg, ACB_MSG_LEN, "bad scale %d/8", o->k);
		rc = -1;
		goto out;
	}
	if (setjmp(x->err.jb)) {
		acb_set_msg(o->msg, (j_common_ptr)&x->d);
		if (x->progress.exceeded)
			snprintf(o->msg, ACB_MSG_LEN, "more than %d scans", o->max_scans);
		rc = x->err.pub.msg_code == JERR_OUT_OF_MEMORY ? -3 : -1;
		goto out;
	}
	jpeg_create_decompress(&x->d);
	x->created = 1;
	x->progress.pub.progress_monitor = scan_limit;
	x->progress.max_scans = o->max_scans;
	x->d.progress = &x->progress.pub;
	if (buf != NULL) {
		jpeg_mem_src(&x->d, buf, (unsigned long)len);
	} else {
		// Streaming a large file keeps it out of memory: libjpeg reads
		// 4 KB at a time. The descriptor is duplicated so fclose leaves
		// the caller's open.
		int dfd = dup(fd);
		if (dfd < 0 || (fp = fdopen(dfd, "rb")) == NULL) {
			if (dfd >= 0)
				close(dfd);
			snprintf(o->msg, ACB_MSG_LEN, "cannot read the input file");
			rc = -1;
			goto out;
		}
		jpeg_stdio_src(&x->d, fp);
	}
	if (jpeg_read_header(&x->d, TRUE) != JPEG_HEADER_OK) {
		snprintf(o->msg, ACB_MSG_LEN, "no image in the JPEG stream");
		rc = -1;
		goto out;
	}
	rc = check_header(&x->d, o);
	if (rc != 0)
		goto out;
	x->d.mem->max_memory_to_use = 64L << 20;
	// Progressive and non-interleaved sequential files need whole-image
	// coefficient buffers. The compact store bounds their memory and, when
	// downscaling, lets decoding stop early; at full scale on a small file
	// libjpeg's own buffer and SIMD IDCT are faster.
	long blocks = 0;
	for (int c = 0; c < x->d.num_components; c++)
		blocks += (long)x->d.comp_info[c].width_in_blocks * x->d.comp_info[c].height_in_blocks;
	int multiscan = x->d.progressive_mode || x->d.comps_in_scan != x->d.num_components;
	if (multiscan && (o->k < 8 || blocks * (long)sizeof(JBLOCK) > (16L << 20)))
		rc = acb_decode_progressive(x, o);
	else
		rc = decode_sequential(x, o);
out:
	o->warnings = x->err.warnings;
	if (x->created)
		jpeg_destroy_decompress(&x->d);
	acb_store_free(&x->st);
	free(x);
	if (fp != NULL)
		fclose(fp);
	if (rc != 0)
		acb_dec_free(o);
	return rc;
}

void acb_dec_free(acb_dec *o) {
	if (o->region != NULL)
		acb_region_free(o->region, o->region_len);
	o->region = NULL;
	for (int c = 0; c < 3; c++)
		o->plane[c] = NULL;
}

// ---- encode -----------------------------------------------------------

typedef struct {
	struct jpeg_compress_struct c;
	acb_err err;
	int created;
} enc_ctx;

int acb_encode(acb_enc *e, const unsigned char *y, const unsigned char *cb, const unsigned char *cr) {
	enc_ctx *x = calloc(1, sizeof(*x));
	if (x == NULL) {
		snprintf(e->msg, ACB_MSG_LEN, "out of memory");
		return -1;
	}
	const unsigned char *planes[3] = {y, cb, cr};
	int rc = 0;
	acb_err_init(&x->err);
	x->c.err = &x->err.pub;
	e->out = NULL;
	e->out_len = 0;
	if (setjmp(x->err.jb)) {
		acb_set_msg(e->msg, (j_common_ptr)&x->c);
		rc = -1;
		goto out;
	}
	jpeg_create_compress(&x->c);
	x->created = 1;
	jpeg_mem_dest(&x->c, &e->out, &e->out_len);
	x->c.image_width = (JDIMENSION)e->width;
	x->c.image_height = (JDIMENSION)e->height;
	x->c.input_components = e->ncomp;
	x->c.in_color_space = e->ncomp == 3 ? JCS_YCbCr : JCS_GRAYSCALE;
	jpeg_set_defaults(&x->c);
	// Metadata-free output: no JFIF APP0, no Adobe APP14.
	x->c.write_JFIF_header = FALSE;
	x->c.write_Adobe_marker = FALSE;
	x->c.comp_info[0].h_samp_factor = e->hs;
	x->c.comp_info[0].v_samp_factor = e->vs;
	for (int c = 1; c < e->ncomp; c++) {
		x->c.comp_info[c].h_samp_factor = 1;
		x->c.comp_info[c].v_samp_factor = 1;
	}
	unsigned int tbl[64];
	for (int t = 0; t < (e->ncomp == 3 ? 2 : 1); t++) {
		for (int n = 0; n < 64; n++)
			tbl[n] = e->qt[t][n];
		jpeg_add_quant_table(&x->c, t, tbl, 100, e->baseline_tables ? TRUE : FALSE);
	}
	x->c.comp_info[0].quant_tbl_no = 0;
	for (int c = 1; c < e->ncomp; c++)
		x->c.comp_info[c].quant_tbl_no = 1;
	x->c.optimize_coding = TRUE;
	x->c.dct_method = JDCT_ISLOW;
	if (e->progressive)
		jpeg_simple_progression(&x->c);
	x->c.raw_data_in = TRUE;
	jpeg_start_compress(&x->c, TRUE);

	JSAMPROW rows[3][32];
	JSAMPARRAY arr[3] = {rows[0], rows[1], rows[2]};
	int lines = DCTSIZE * e->vs;
	while (x->c.next_scanline < x->c.image_height) {
		int y0 = (int)x->c.next_scanline;
		for (int c = 0; c < e->ncomp; c++) {
			int vs = c == 0 ? e->vs : 1;
			int r0 = c == 0 ? y0 : y0 / e->vs;
			for (int j = 0; j < DCTSIZE * vs; j++)
				rows[c][j] = (JSAMPROW)(planes[c] + (size_t)(r0 + j) * e->stride[c]);
		}
		if (jpeg_write_raw_data(&x->c, arr, (JDIMENSION)lines) == 0) {
			snprintf(e->msg, ACB_MSG_LEN, "encoder made no progress");
			rc = -1;
			goto out;
		}
	}
	jpeg_finish_compress(&x->c);
out:
	if (x->created)
		jpeg_destroy_compress(&x->c);
	free(x);
	if (rc != 0)
		acb_enc_free(e);
	return rc;
}

void acb_enc_free(acb_enc *e) {
	free(e->out);
	e->out = NULL;
	e->out_len = 0;
}
