// Compact coefficient store and early-stopping decode for progressive
// JPEGs, written by hand for package jpeg (see turbo.go). Two things here
// exist in no library:
//
//  1. A coefficient store for progressive files. libjpeg buffers 128 bytes
//     per DCT block of the whole image for a progressive file (72 MB for a
//     5640x3172 4:2:2 photo) and libjpeg-turbo has no backing store. We
//     replace the memory manager's virtual block arrays with one that keeps,
//     per block, a 64-bit nonzero map (all the entropy decoder needs to parse
//     later refinement scans) and only the k x k low-frequency coefficients
//     that a k/8 DCT-domain downscale uses.
//  2. Early stop: decoding ends at the first scan boundary at which every
//     kept coefficient is known to within max_err, so the final refinement
//     scans (half the work of a typical progressive file) are skipped when
//     they cannot change the downscaled result visibly.

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>

#include "turbo_int.h"

// ---- compact coefficient store ---------------------------------------

struct jvirt_barray_control {
	JDIMENSION rows, cols, maxaccess;
	unsigned long long *mask; // rows*cols nonzero maps, bit n = natural position n
	JCOEF *vals;              // rows*cols*nk kept coefficients
	JBLOCKROW winbuf;         // maxaccess*cols full blocks
	JBLOCKROW *win;           // maxaccess row pointers into winbuf
	JDIMENSION win_first, win_n;
	int win_ss, win_se, dirty;
	struct jvirt_barray_control *next;
};

static jvirt_barray_ptr st_request(j_common_ptr c, int pool, boolean pre_zero,
                                   JDIMENSION cols, JDIMENSION rows, JDIMENSION maxaccess) {
	acb_store *st = (acb_store *)c->client_data;
	(void)pool;
	(void)pre_zero; // always zeroed: calloc
	struct jvirt_barray_control *a = calloc(1, sizeof(*a));
	if (a == NULL) {
		c->err->msg_code = JERR_OUT_OF_MEMORY;
		c->err->msg_parm.i[0] = 100;
		(*c->err->error_exit)(c);
	}
	a->rows = rows;
	a->cols = cols;
	a->maxaccess = maxaccess;
	if (st->tail)
		st->tail->next = a;
	else
		st->head = a;
	st->tail = a;
	st->narrays++;
	return a;
}

static void st_realize(j_common_ptr c) {
	acb_store *st = (acb_store *)c->client_data;
	st->orig_realize(c);
	long total = 0;
	for (struct jvirt_barray_control *a = st->head; a; a = a->next) {
		size_t blocks = (size_t)a->rows * a->cols;
		total += (long)(blocks * (sizeof(unsigned long long) + sizeof(JCOEF) * st->nk) +
		                (size_t)a->maxaccess * a->cols * sizeof(JBLOCK));
	}
	if (total > st->max_bytes) {
		c->err->msg_code = JERR_OUT_OF_MEMORY;
		c->err->msg_parm.i[0] = 101;
		(*c->err->error_exit)(c);
	}
	for (struct jvirt_barray_control *a = st->head; a; a = a->next) {
		size_t blocks = (size_t)a->rows * a->cols;
		a->mask = calloc(blocks ? blocks : 1, sizeof(unsigned long long));
		a->vals = calloc(blocks * st->nk ? blocks * st->nk : 1, sizeof(JCOEF));
		a->winbuf = malloc(((size_t)a->maxaccess * a->cols + 1) * sizeof(JBLOCK));
		a->win = malloc(((size_t)a->maxaccess + 1) * sizeof(JBLOCKROW));
		if (!a->mask || !a->vals || !a->winbuf || !a->win) {
			c->err->msg_code = JERR_OUT_OF_MEMORY;
			c->err->msg_parm.i[0] = 102;
			(*c->err->error_exit)(c);
		}
		for (JDIMENSION r = 0; r < a->maxaccess; r++)
			a->win[r] = a->winbuf + (size_t)r * a->cols;
	}
}

// Only the coefficients of the current scan's band are moved between the
// compact store and the window: the entropy decoder touches no others.
static void st_flush(acb_store *st, struct jvirt_barray_control *a) {
	if (!a->dirty)
		return;
	for (JDIMENSION r = 0; r < a->win_n; r++) {
		size_t base = (size_t)(a->win_first + r) * a->cols;
		for (JDIMENSION x = 0; x < a->cols; x++) {
			JCOEF *blk = a->win[r][x];
			unsigned long long m = a->mask[base + x];
			JCOEF *v = a->vals + (base + x) * st->nk;
			for (int k = a->win_ss; k <= a->win_se; k++) {
				int n = acb_zz[k];
				if (blk[n])
					m |= 1ULL << n;
				else
					m &= ~(1ULL << n);
				if (st->keep[n] >= 0)
					v[st->keep[n]] = blk[n];
			}
			a->mask[base + x] = m;
		}
	}
	a->dirty = 0;
}

static void st_load(acb_store *st, struct jvirt_barray_control *a, JDIMENSION first,
                    JDIMENSION n, int ss, int se) {
	for (JDIMENSION r = 0; r < n; r++) {
		size_t base = (size_t)(first + r) * a->cols;
		for (JDIMENSION x = 0; x < a->cols; x++) {
			JCOEF *blk = a->win[r][x];
			unsigned long long m = a->mask[base + x];
			const JCOEF *v = a->vals + (base + x) * st->nk;
			for (int k = ss; k <= se; k++) {
				int p = acb_zz[k];
				// A coefficient we do not keep only has to stay nonzero:
				// refinement scans test nothing else about it.
				blk[p] = st->keep[p] >= 0 ? v[st->keep[p]] : (JCOEF)((m >> p) & 1);
			}
		}
	}
	a->win_first = first;
	a->win_n = n;
	a->win_ss = ss;
	a->win_se = se;
}

static JBLOCKARRAY st_access(j_common_ptr c, jvirt_barray_ptr a, JDIMENSION start,
                             JDIMENSION num, boolean writable) {
	acb_store *st = (acb_store *)c->client_data;
	j_decompress_ptr d = (j_decompress_ptr)c;
	if (start + num > a->rows || num > a->maxaccess || a->win == NULL) {
		c->err->msg_code = JERR_BAD_VIRTUAL_ACCESS;
		(*c->err->error_exit)(c);
	}
	int ss = d->Ss, se = d->Se;
	if (ss < 0 || se > 63 || ss > se) {
		ss = 0;
		se = 63;
	}
	if (a->win_n == 0 || start < a->win_first || start + num > a->win_first + a->win_n ||
	    ss != a->win_ss || se != a->win_se) {
		st_flush(st, a);
		st_load(st, a, start, num, ss, se);
	}
	if (writable)
		a->dirty = 1;
	return a->win + (start - a->win_first);
}

void acb_store_free(acb_store *st) {
	struct jvirt_barray_control *a = st->head;
	while (a) {
		struct jvirt_barray_control *next = a->next;
		free(a->mask);
		free(a->vals);
		free(a->winbuf);
		free(a->win);
		free(a);
		a = next;
	}
	st->head = st->tail = NULL;
}

static const JQUANT_TBL *comp_qtable(j_decompress_ptr d, int ci) {
	jpeg_component_info *cp = &d->comp_info[ci];
	if (cp->quant_table)
		return cp->quant_table;
	if (cp->quant_tbl_no >= 0 && cp->quant_tbl_no < NUM_QUANT_TBLS)
		return d->quant_tbl_ptrs[cp->quant_tbl_no];
	return NULL;
}

// precise_enough reports whether every kept coefficient of every component
// has data and is known to within max_err dequantized units, judged on
// bits, a snapshot of coef_bits. libjpeg updates coef_bits when it reads a
// scan header, before decoding the scan, so the caller snapshots it at each
// header and judges the previous snapshot: the state after the last
// completed scan.
static int precise_enough(j_decompress_ptr d, acb_store *st, int (*bits)[64], int max_err) {
	for (int ci = 0; ci < d->num_components; ci++) {
		const JQUANT_TBL *q = comp_qtable(d, ci);
		if (q == NULL)
			return 0;
		for (int k = 0; k < 64; k++) {
			int n = acb_zz[k];
			if (st->keep[n] < 0)
				continue;
			int al = bits[ci][k];
			if (al < 0)
				return 0;
			if (((1L << al) - 1) * (long)q->quantval[n] > max_err)
				return 0;
		}
	}
	return 1;
}

static void snapshot_bits(j_decompress_ptr d, int (*bits)[64]) {
	for (int ci = 0; ci < d->num_components && ci < MAX_COMPONENTS; ci++)
		for (int k = 0; k < 64; k++)
			bits[ci][k] = d->coef_bits ? d->coef_bits[ci][k] : 0;
}

// idct_store writes the k x k inverse DCT of each block's kept (low)
// coefficients: the 8-point basis truncated to k points, which is what
// libjpeg's own scaled IDCTs compute.
static void idct_store(j_decompress_ptr d, acb_store *st, acb_dec *o) {
	int k = st->k;
	double ct[8][8]; // ct[x][u] = c(u) cos((2x+1)u pi / 2k)
	for (int x = 0; x < k; x++)
		for (int u = 0; u < k; u++)
			ct[x][u] = (u == 0 ? M_SQRT1_2 : 1.0) * cos((2 * x + 1) * u * M_PI / (2.0 * k));
	struct jvirt_barray_control *a = st->head;
	for (int ci = 0; ci < d->num_components; ci++, a = a->next) {
		const JQUANT_TBL *q = comp_qtable(d, ci);
		jpeg_component_info *cp = &d->comp_info[ci];
		unsigned char *out = o->plane[ci];
		int stride = o->stride[ci];
		JDIMENSION bw = cp->width_in_blocks, bh = cp->height_in_blocks;
		if (bw > a->cols)
			bw = a->cols;
		if (bh > a->rows)
			bh = a->rows;
		double qv[64];
		for (int n = 0; n < 64; n++)
			qv[n] = q->quantval[n];
		for (JDIMENSION by = 0; by < bh; by++) {
			for (JDIMENSION bx = 0; bx < bw; bx++) {
				const JCOEF *v = a->vals + ((size_t)by * a->cols + bx) * st->nk;
				double t[8][8]; // t[u][x]
				for (int u = 0; u < k; u++)
					for (int x = 0; x < k; x++) {
						double s = 0;
						for (int w = 0; w < k; w++)
							s += v[u * k + w] * qv[u * 8 + w] * ct[x][w];
						t[u][x] = s;
					}
				for (int y = 0; y < k; y++) {
					unsigned char *row = out + (size_t)(by * k + y) * stride + (size_t)bx * k;
					for (int x = 0; x < k; x++) {
						double s = 0;
						for (int u = 0; u < k; u++)
							s += t[u][x] * ct[y][u];
						long p = lround(0.25 * s + 128.0);
						row[x] = (unsigned char)(p < 0 ? 0 : p > 255 ? 255 : p);
					}
				}
			}
		}
	}
}

int acb_decode_progressive(dec_ctx *x, acb_dec *o) {
	j_decompress_ptr d = &x->d;
	acb_store *st = &x->st;
	st->k = o->k;
	st->nk = o->k * o->k;
	for (int n = 0; n < 64; n++) {
		int r = n / 8, c = n % 8;
		st->keep[n] = (r < o->k && c < o->k) ? r * o->k + c : -1;
	}
	st->max_bytes = 48L << 20;
	d->client_data = st;
	st->orig_realize = d->mem->realize_virt_arrays;
	d->mem->request_virt_barray = st_request;
	d->mem->realize_virt_arrays = st_realize;
	d->mem->access_virt_barray = st_access;

	d->buffered_image = TRUE;
	d->scale_num = (unsigned int)o->k;
	d->scale_denom = 8;
	d->raw_data_out = TRUE;
	d->do_block_smoothing = FALSE;
	jpeg_start_decompress(d);
	if (st->narrays != d->num_components) {
		snprintf(o->msg, ACB_MSG_LEN, "unexpected coefficient buffers");
		return -1;
	}
	int scans = 1;
	int bits[MAX_COMPONENTS][64];
	snapshot_bits(d, bits); // scan 1, whose header is read
	for (;;) {
		int ret = jpeg_consume_input(d);
		if (ret == JPEG_REACHED_EOI || ret == JPEG_SUSPENDED)
			break;
		if (ret == JPEG_REACHED_SOS) {
			// bits describes the scans completed so far.
			if (d->progressive_mode && precise_enough(d, st, bits, o->max_err))
				break;
			snapshot_bits(d, bits);
			if (++scans > o->max_scans) {
				snprintf(o->msg, ACB_MSG_LEN, "more than %d scans", o->max_scans);
				return -1;
			}
		}
	}
	o->scans = scans;
	for (struct jvirt_barray_control *a = st->head; a; a = a->next)
		st_flush(st, a);

	int pw[3], ph[3], aw[3], ah[3];
	for (int c = 0; c < d->num_components; c++) {
		jpeg_component_info *cp = &d->comp_info[c];
		long cw = ((long)d->image_width * cp->h_samp_factor + d->max_h_samp_factor - 1) / d->max_h_samp_factor;
		long chh = ((long)d->image_height * cp->v_samp_factor + d->max_v_samp_factor - 1) / d->max_v_samp_factor;
		pw[c] = (int)((cw * o->k + 7) / 8);
		ph[c] = (int)((chh * o->k + 7) / 8);
		aw[c] = (int)cp->width_in_blocks * o->k;
		ah[c] = (int)cp->height_in_blocks * o->k;
		if (pw[c] > aw[c])
			pw[c] = aw[c];
		if (ph[c] > ah[c])
			ph[c] = ah[c];
	}
	if (acb_alloc_planes(o, d->num_components, pw, ph, aw, ah) != 0) {
		snprintf(o->msg, ACB_MSG_LEN, "out of memory");
		return -1;
	}
	idct_store(d, st, o);
	return 0;
}

