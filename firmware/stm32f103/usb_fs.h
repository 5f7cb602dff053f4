/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32F103 USB full-speed device peripheral (RM0008 section 23), as
 * the driver in dcd_stm32f1.c uses it.
 *
 * USB_EPnR (n = 0..7), 16 bits used:
 *
 *   15      14      13:12    11     10:9     8       7       6       5:4     3:0
 * +-------+-------+--------+------+--------+-------+-------+-------+-------+-----+
 * |CTR_RX |DTOG_RX|STAT_RX |SETUP |EP_TYPE |EP_KIND|CTR_TX |DTOG_TX|STAT_TX| EA  |
 * | rc_w0 |  t    |  t     |  r   |  rw    |  rw   | rc_w0 |  t    |  t    | rw  |
 * +-------+-------+--------+------+--------+-------+-------+-------+-------+-----+
 *   rc_w0: writing 0 clears, writing 1 leaves it alone.
 *   t:     writing 1 toggles, writing 0 leaves it alone.
 * So every write must carry 1 in both CTR bits it does not mean to clear,
 * 0 in every toggle bit it does not mean to flip, and the rw bits as read.
 *
 * USB_ISTR: CTR (15, read-only), PMAOVR ERR WKUP SUSP RESET SOF ESOF (14:8,
 * rc_w0), DIR (4) and EP_ID (3:0) of the endpoint whose CTR is pending.
 *
 * Packet memory: 512 bytes of USB-side memory, which the CPU sees as 256
 * 16-bit halfwords, each at the low half of a 32-bit word (USB offset a is
 * at CPU address 0x40006000 + 2 * a; only 8- and 16-bit CPU accesses). The
 * buffer descriptor table at BTABLE holds per endpoint ADDR_TX, COUNT_TX,
 * ADDR_RX, COUNT_RX (16 bits each); COUNT_RX has BL_SIZE (15), NUM_BLOCK
 * (14:10) and the received COUNT (9:0). */
#ifndef NG_USB_FS_H
#define NG_USB_FS_H
#include "stm32f103.h"

#define NG_EPR_CTR_RX   0x8000u
#define NG_EPR_DTOG_RX  0x4000u
#define NG_EPR_STAT_RX  0x3000u
#define NG_EPR_SETUP    0x0800u
#define NG_EPR_TYPE     0x0600u
#define  NG_EPR_TYPE_BULK      0x0000u
#define  NG_EPR_TYPE_CONTROL   0x0200u
#define  NG_EPR_TYPE_ISO       0x0400u
#define  NG_EPR_TYPE_INTERRUPT 0x0600u
#define NG_EPR_KIND     0x0100u
#define NG_EPR_CTR_TX   0x0080u
#define NG_EPR_DTOG_TX  0x0040u
#define NG_EPR_STAT_TX  0x0030u
#define NG_EPR_EA       0x000Fu
#define NG_EPR_RW       (NG_EPR_TYPE | NG_EPR_KIND | NG_EPR_EA)
#define NG_STAT_DISABLED 0u
#define NG_STAT_STALL    1u
#define NG_STAT_NAK      2u
#define NG_STAT_VALID    3u

#define NG_CNTR_FRES    0x0001u
#define NG_CNTR_PDWN    0x0002u
#define NG_CNTR_LPMODE  0x0004u
#define NG_CNTR_FSUSP   0x0008u
#define NG_CNTR_RESUME  0x0010u
#define NG_CNTR_ESOFM   0x0100u
#define NG_CNTR_SOFM    0x0200u
#define NG_CNTR_RESETM  0x0400u
#define NG_CNTR_SUSPM   0x0800u
#define NG_CNTR_WKUPM   0x1000u
#define NG_CNTR_ERRM    0x2000u
#define NG_CNTR_PMAOVRM 0x4000u
#define NG_CNTR_CTRM    0x8000u

#define NG_ISTR_EP_ID   0x000Fu
#define NG_ISTR_DIR     0x0010u
#define NG_ISTR_ESOF    0x0100u
#define NG_ISTR_SOF     0x0200u
#define NG_ISTR_RESET   0x0400u
#define NG_ISTR_SUSP    0x0800u
#define NG_ISTR_WKUP    0x1000u
#define NG_ISTR_ERR     0x2000u
#define NG_ISTR_PMAOVR  0x4000u
#define NG_ISTR_CTR     0x8000u

#define NG_DADDR_EF     0x0080u

#define NG_PMA_BYTES    512u
/* Endpoint registers the driver uses (the peripheral has 8); the boot
 * loader's build uses endpoint 0 only (NG_USB_NEP 1). */
#ifndef NG_USB_NEP
#define NG_USB_NEP      8u
#endif

/* Halfword access to the packet memory (host model: ng_model_*16; a
 * test may map it itself: tests/firmware/qemu/fw_cost.c). */
#if defined(NG_PMA_RD) && defined(NG_PMA_WR)
#elif defined(NG_FW_HOST_MODEL)
uint16_t ng_model_read16(uint32_t addr);
void ng_model_write16(uint32_t addr, uint16_t val);
#define NG_PMA_RD(off)    ng_model_read16(NG_USB_PMA + 2u * (uint32_t)(off))
#define NG_PMA_WR(off, v) ng_model_write16(NG_USB_PMA + 2u * (uint32_t)(off), (uint16_t)(v))
#else
#define NG_PMA_RD(off)    (*(volatile uint16_t *)(uintptr_t)(NG_USB_PMA + 2u * (uint32_t)(off)))
#define NG_PMA_WR(off, v) (*(volatile uint16_t *)(uintptr_t)(NG_USB_PMA + 2u * (uint32_t)(off)) = (uint16_t)(v))
#endif

/* Buffer descriptor table entries (USB-side offsets, BTABLE = 0). */
#define NG_BT_ADDR_TX(n)  (8u * (uint32_t)(n) + 0u)
#define NG_BT_COUNT_TX(n) (8u * (uint32_t)(n) + 2u)
#define NG_BT_ADDR_RX(n)  (8u * (uint32_t)(n) + 4u)
#define NG_BT_COUNT_RX(n) (8u * (uint32_t)(n) + 6u)
#define NG_BTABLE_BYTES   (8u * NG_USB_NEP)

#endif
