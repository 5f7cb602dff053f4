/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A mass-storage-only device (one interface, bulk EP 0x83 IN and 0x03 OUT)
 * for the MSC unit test and the CBW fuzzer: the real usbd.c and msc.c with
 * nothing else around them. */
#ifndef NG_TEST_MSC_DESC_H
#define NG_TEST_MSC_DESC_H
#include <stdint.h>
#include "usbd.h"

static const uint8_t dev_desc[18] = {18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x4B, 0x23, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 1};
static const uint8_t cfg_desc[9 + 9 + 7 + 7] = {
	9, 2, sizeof cfg_desc, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 2, 0x08, 0x06, 0x50, 0,
	7, 5, 0x83, 2, 64, 0, 0,
	7, 5, 0x03, 2, 64, 0, 0,
};
static const ng_usbd_desc desc = {dev_desc, cfg_desc, NULL};

#endif
