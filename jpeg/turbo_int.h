// Declarations shared by turbo.c and store.c (package jpeg's libjpeg
// glue); not part of the Go-facing API in turbo.h.

#ifndef ACB_TURBO_INT_H
#define ACB_TURBO_INT_H

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>

#include "turbo.h"

typedef struct {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	int warnings;
} acb_err;

typedef struct {
	int k, nk;
	int keep[64]; // natural position -> index in vals, or -1
	long max_bytes;
	struct jvirt_barray_control *head, *tail;
	int narrays;
	void (*orig_realize)(j_common_ptr);
} acb_store;

typedef struct {
	struct jpeg_progress_mgr pub;
	int max_scans;
	int exceeded;
} acb_progress;

typedef struct {
	struct jpeg_decompress_struct d;
	acb_err err;
	acb_store st;
	acb_progress progress;
	int created;
} dec_ctx;

// Zigzag position -> natural (row-major) position.
extern const int acb_zz[64];

int acb_alloc_planes(acb_dec *o, int ncomp, const int *pw, const int *ph, const int *alloc_w,
                     const int *alloc_h);
int acb_decode_progressive(dec_ctx *x, acb_dec *o);
void acb_store_free(acb_store *st);

#endif
