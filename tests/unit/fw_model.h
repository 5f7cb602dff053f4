/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A register-level model of the STM32F103 peripherals the firmware drivers
 * touch, for host unit tests that #include the driver .c files with
 * NG_FW_HOST_MODEL. Semantics follow RM0008:
 *   USB_EPnR  CTR_RX/CTR_TX rc_w0, DTOG/STAT toggle-on-write-1, SETUP
 *             read-only, EP_TYPE/EP_KIND/EA read-write (23.5.2)
 *   USB_ISTR  bits 14:8 rc_w0; CTR, DIR, EP_ID computed from the EPnR
 *   PMA       256 halfwords at 0x40006000 + 4 * i; 32-bit CPU access is a
 *             model error (RM0008 23.5: byte or half-word only)
 *   USB hardware side: a SETUP is accepted whatever STAT_RX says, unless
 *             CTR_RX is still set (then no handshake); it sets both STATs to
 *             NAK and leaves DTOG_TX = 1, DTOG_RX = 1 (cleared at the SETUP
 *             PID, toggled by its DATA0: RM0008 23.4.2, 23.5.2); IN/OUT only
 *             when STAT is VALID, then STAT -> NAK, DTOG flips, CTR set
 *   DMA1 ch1  circular transfers of words from ADC1_DR, HTIF/TCIF/GIF and
 *             the interrupt when enabled; ADC conversions start on SWSTART
 *   CRC       DR write shifts a word in MSB first (poly 0x04C11DB7), CR
 *             RESET loads 0xFFFFFFFF
 * Everything else is plain memory. Model errors are counted in
 * fw_model.errors with the first message in fw_model.why. */
#ifndef NG_FW_MODEL_H
#define NG_FW_MODEL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../../firmware/stm32f103/stm32f103.h"
#include "../../firmware/stm32f103/usb_fs.h"
#include "../../firmware/stm32f103/fw.h"

#define FW_FN static __attribute__((unused))

#define FW_MODEL_REGS 256

static struct {
	uint32_t addr[FW_MODEL_REGS], val[FW_MODEL_REGS];
	uint32_t nregs;
	uint16_t epr[NG_USB_NEP];
	uint16_t istr;
	uint16_t pma[NG_PMA_BYTES / 2];
	bool irq_enabled;
	uint32_t errors;
	char why[200];
	/* DMA/ADC */
	const uint32_t *samples;
	size_t nsamples, next_sample;
	uint32_t *dma_mem;      /* the buffer CMAR names (set by the test) */
	uint32_t dma_pos;       /* words into the buffer */
	bool adc_running;
	uint32_t crc;
	uint8_t host_addr;      /* the address the host talks to */
	uint32_t gpioa_crh_at_usben, gpioa_bsrr_at_usben; /* PA8-15 when USBEN was set */
} fw_model;

FW_FN void fw_model_error(const char *msg, uint32_t addr)
{
	if (!fw_model.errors++)
		snprintf(fw_model.why, sizeof fw_model.why, "%s at 0x%08x", msg, addr);
}

FW_FN uint32_t *fw_plain(uint32_t addr)
{
	for (uint32_t i = 0; i < fw_model.nregs; i++)
		if (fw_model.addr[i] == addr)
			return &fw_model.val[i];
	if (fw_model.nregs == FW_MODEL_REGS) {
		fw_model_error("model register table full", addr);
		return &fw_model.val[0];
	}
	fw_model.addr[fw_model.nregs] = addr;
	fw_model.val[fw_model.nregs] = 0;
	return &fw_model.val[fw_model.nregs++];
}

FW_FN void fw_model_reset(void)
{
	memset(&fw_model, 0, sizeof fw_model);
	fw_model.irq_enabled = true;
	fw_model.crc = 0xFFFFFFFFu;
}

FW_FN bool fw_is_epr(uint32_t a) { return a >= NG_USB && a < NG_USB + 4u * NG_USB_NEP; }
FW_FN bool fw_is_pma(uint32_t a) { return a >= NG_USB_PMA && a < NG_USB_PMA + 2u * NG_PMA_BYTES; }

FW_FN uint16_t fw_istr_now(void)
{
	uint16_t v = fw_model.istr & 0x7F00u;
	for (uint32_t n = 0; n < NG_USB_NEP; n++) {
		uint16_t r = fw_model.epr[n];
		if (r & (NG_EPR_CTR_RX | NG_EPR_CTR_TX)) {
			v |= (uint16_t)(NG_ISTR_CTR | n | ((r & NG_EPR_CTR_RX) ? NG_ISTR_DIR : 0));
			break;
		}
	}
	return v;
}

FW_FN uint32_t fw_crc_word(uint32_t crc, uint32_t w)
{
	crc ^= w;
	for (int i = 0; i < 32; i++)
		crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
	return crc;
}

uint32_t ng_model_read(uint32_t a)
{
	if (fw_is_epr(a))
		return fw_model.epr[(a - NG_USB) / 4u];
	if (a == NG_USB_ISTR)
		return fw_istr_now();
	if (fw_is_pma(a)) {
		fw_model_error("32-bit read of the packet memory", a);
		return 0;
	}
	if (a == NG_CRC_DR)
		return fw_model.crc;
	if (a == NG_RCC_CR) { /* oscillators are ready as soon as they are on */
		uint32_t v = *fw_plain(a);
		return v | ((v & NG_RCC_CR_HSEON) << 1) | ((v & NG_RCC_CR_PLLON) << 1);
	}
	if (a == NG_RCC_CFGR) {
		uint32_t v = *fw_plain(a);
		return (v & ~NG_RCC_CFGR_SWS_MASK) | ((v & 3u) << 2);
	}
	if (a == NG_ADC_CR2(NG_ADC1) || a == NG_ADC_CR2(NG_ADC2)) /* CAL, RSTCAL finish at once */
		return *fw_plain(a) & ~(NG_ADC_CR2_CAL | NG_ADC_CR2_RSTCAL | NG_ADC_CR2_SWSTART);
	if (a == NG_SYST_CVR) { /* a free-running down-counter for delays */
		uint32_t *v = fw_plain(a);
		*v = (*v + 71999u) % 72000u;
		return *v;
	}
	return *fw_plain(a);
}

void ng_model_write(uint32_t a, uint32_t v)
{
	if (fw_is_epr(a)) {
		uint32_t n = (a - NG_USB) / 4u;
		uint16_t old = fw_model.epr[n], w = (uint16_t)v;
		uint16_t ctr = old & w & (NG_EPR_CTR_RX | NG_EPR_CTR_TX);      /* rc_w0 */
		uint16_t tog = (old ^ w) & (NG_EPR_DTOG_RX | NG_EPR_STAT_RX |
					    NG_EPR_DTOG_TX | NG_EPR_STAT_TX); /* toggle */
		fw_model.epr[n] = (uint16_t)(ctr | tog | (old & NG_EPR_SETUP) | (w & NG_EPR_RW));
		return;
	}
	if (a == NG_USB_ISTR) {
		fw_model.istr &= (uint16_t)(v | 0x80FFu); /* bits 14:8 rc_w0 */
		return;
	}
	if (fw_is_pma(a)) {
		fw_model_error("32-bit write of the packet memory", a);
		return;
	}
	if (a == NG_CRC_DR) {
		fw_model.crc = fw_crc_word(fw_model.crc, v);
		return;
	}
	if (a == NG_CRC_CR) {
		if (v & NG_CRC_CR_RESET)
			fw_model.crc = 0xFFFFFFFFu;
		return;
	}
	if (a == NG_DMA_IFCR) {
		uint32_t *isr = fw_plain(NG_DMA_ISR);
		*isr &= ~v;
		if (v & NG_DMA_GIF1)
			*isr &= ~0xFu;
		return;
	}
	if (a == NG_ADC_CR2(NG_ADC1)) {
		if ((v & NG_ADC_CR2_SWSTART) && (v & NG_ADC_CR2_ADON))
			fw_model.adc_running = (v & NG_ADC_CR2_CONT) != 0;
		if (!(v & NG_ADC_CR2_CONT) || !(v & NG_ADC_CR2_ADON))
			fw_model.adc_running = false;
	}
	if (a == NG_RCC_APB1ENR && (v & NG_RCC_APB1ENR_USBEN) && !(*fw_plain(a) & NG_RCC_APB1ENR_USBEN)) {
		fw_model.gpioa_crh_at_usben = *fw_plain(NG_GPIO_CRH(NG_GPIOA));
		fw_model.gpioa_bsrr_at_usben = *fw_plain(NG_GPIO_BSRR(NG_GPIOA));
	}
	if (a == NG_DMA_CCR1 && (v & NG_DMA_CCR_EN) && !(*fw_plain(a) & NG_DMA_CCR_EN))
		fw_model.dma_pos = 0;
	*fw_plain(a) = v;
}

uint16_t ng_model_read16(uint32_t a)
{
	if (!fw_is_pma(a) || (a & 3u)) {
		fw_model_error("16-bit read outside the packet memory's halfwords", a);
		return 0;
	}
	return fw_model.pma[(a - NG_USB_PMA) / 4u];
}

void ng_model_write16(uint32_t a, uint16_t v)
{
	if (!fw_is_pma(a) || (a & 3u)) {
		fw_model_error("16-bit write outside the packet memory's halfwords", a);
		return;
	}
	fw_model.pma[(a - NG_USB_PMA) / 4u] = v;
}

void ng_model_irq(int enable)
{
	fw_model.irq_enabled = enable != 0;
}

/* ---- the USB host side ------------------------------------------------- */

FW_FN uint32_t fw_pma_addr(uint32_t off) { return fw_model.pma[off / 2u]; }

FW_FN void fw_pma_put(uint32_t usb_off, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		uint16_t *h = &fw_model.pma[(usb_off + i) / 2u];
		if ((usb_off + i) & 1u)
			*h = (uint16_t)((*h & 0x00FFu) | (p[i] << 8));
		else
			*h = (uint16_t)((*h & 0xFF00u) | p[i]);
	}
}

FW_FN void fw_pma_get(uint8_t *p, uint32_t usb_off, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		uint16_t h = fw_model.pma[(usb_off + i) / 2u];
		p[i] = (uint8_t)(((usb_off + i) & 1u) ? h >> 8 : h);
	}
}

FW_FN uint32_t fw_rx_capacity(uint32_t n)
{
	uint16_t c = (uint16_t)fw_pma_addr(NG_BT_COUNT_RX(n));
	uint32_t nb = (c >> 10) & 0x1Fu;
	return (c & 0x8000u) ? (nb + 1u) * 32u : nb * 2u;
}

/* The endpoint register answering endpoint address ea at the host's
 * current device address, or NG_USB_NEP when nothing answers. */
FW_FN uint32_t fw_ep_of_addr(uint32_t ea)
{
	uint32_t d = *fw_plain(NG_USB_DADDR);
	if (!(d & NG_DADDR_EF) || (d & 0x7Fu) != fw_model.host_addr)
		return NG_USB_NEP;
	for (uint32_t n = 0; n < NG_USB_NEP; n++)
		if ((fw_model.epr[n] & NG_EPR_EA) == ea &&
		    (fw_model.epr[n] & (NG_EPR_STAT_RX | NG_EPR_STAT_TX)))
			return n;
	return NG_USB_NEP;
}

#define FW_ACK   0
#define FW_NAK   1
#define FW_STALL 2
#define FW_ERR   3
#define FW_NOREPLY 4

/* The host sends a SETUP to endpoint 0 (always accepted). */
FW_FN int fw_host_setup(const uint8_t s[8])
{
	uint32_t n = fw_ep_of_addr(0);
	if (n == NG_USB_NEP || (fw_model.epr[n] & NG_EPR_TYPE) != NG_EPR_TYPE_CONTROL)
		return FW_ERR;
	if (fw_rx_capacity(n) < 8)
		return FW_ERR;
	/* RM0008 23.4.2: with CTR_RX still set, the SETUP is discarded without
	 * a handshake (the host retries). */
	if (fw_model.epr[n] & NG_EPR_CTR_RX)
		return FW_NOREPLY;
	fw_pma_put(fw_pma_addr(NG_BT_ADDR_RX(n)), s, 8);
	fw_model.pma[NG_BT_COUNT_RX(n) / 2u] = (uint16_t)((fw_model.pma[NG_BT_COUNT_RX(n) / 2u] & 0xFC00u) | 8u);
	uint16_t r = fw_model.epr[n];
	r = (uint16_t)((r & ~(NG_EPR_STAT_RX | NG_EPR_STAT_TX)) | (NG_STAT_NAK << 12) | (NG_STAT_NAK << 4));
	r |= NG_EPR_DTOG_RX | NG_EPR_DTOG_TX | NG_EPR_SETUP | NG_EPR_CTR_RX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

/* An IN token to endpoint ea: copies the packet out; *dtog gets its PID. */
FW_FN int fw_host_in(uint32_t ea, uint8_t *buf, uint32_t *len, int *dtog)
{
	uint32_t n = fw_ep_of_addr(ea);
	if (n == NG_USB_NEP)
		return FW_ERR;
	uint16_t r = fw_model.epr[n];
	uint32_t st = (r & NG_EPR_STAT_TX) >> 4;
	if (st == NG_STAT_STALL)
		return FW_STALL;
	if (st != NG_STAT_VALID)
		return FW_NAK;
	*len = fw_pma_addr(NG_BT_COUNT_TX(n)) & 0x3FFu;
	fw_pma_get(buf, fw_pma_addr(NG_BT_ADDR_TX(n)), *len);
	if (dtog)
		*dtog = (r & NG_EPR_DTOG_TX) ? 1 : 0;
	r = (uint16_t)((r & ~NG_EPR_STAT_TX) | (NG_STAT_NAK << 4));
	r ^= NG_EPR_DTOG_TX;
	r |= NG_EPR_CTR_TX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

FW_FN int fw_host_out(uint32_t ea, const uint8_t *buf, uint32_t len, int *dtog)
{
	uint32_t n = fw_ep_of_addr(ea);
	if (n == NG_USB_NEP)
		return FW_ERR;
	uint16_t r = fw_model.epr[n];
	uint32_t st = (r & NG_EPR_STAT_RX) >> 12;
	if (st == NG_STAT_STALL)
		return FW_STALL;
	if (st != NG_STAT_VALID)
		return FW_NAK;
	if (len > fw_rx_capacity(n)) {
		fw_model_error("OUT packet larger than the RX buffer (PMAOVR)", n);
		return FW_ERR;
	}
	fw_pma_put(fw_pma_addr(NG_BT_ADDR_RX(n)), buf, len);
	fw_model.pma[NG_BT_COUNT_RX(n) / 2u] = (uint16_t)((fw_model.pma[NG_BT_COUNT_RX(n) / 2u] & 0xFC00u) | len);
	if (dtog)
		*dtog = (r & NG_EPR_DTOG_RX) ? 1 : 0;
	r = (uint16_t)((r & ~(NG_EPR_STAT_RX | NG_EPR_SETUP)) | (NG_STAT_NAK << 12));
	r ^= NG_EPR_DTOG_RX;
	r |= NG_EPR_CTR_RX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

/* A bus reset: the peripheral clears every EPnR and DADDR (RM0008 23.4.2). */
FW_FN void fw_host_reset(void)
{
	memset(fw_model.epr, 0, sizeof fw_model.epr);
	*fw_plain(NG_USB_DADDR) = 0;
	fw_model.istr |= NG_ISTR_RESET;
}

/* Is an interrupt pending that the CNTR masks let through? */
FW_FN bool fw_usb_irq_pending(void)
{
	uint32_t cntr = *fw_plain(NG_USB_CNTR);
	uint16_t istr = fw_istr_now();
	return ((istr & NG_ISTR_CTR) && (cntr & NG_CNTR_CTRM)) ||
	       ((istr & NG_ISTR_RESET) && (cntr & NG_CNTR_RESETM)) ||
	       ((istr & NG_ISTR_SUSP) && (cntr & NG_CNTR_SUSPM)) ||
	       ((istr & NG_ISTR_WKUP) && (cntr & NG_CNTR_WKUPM));
}

/* ---- host-side transfers that let the device run between packets ----- */

/* What the device does between two packets (ISR + main loop); set by the test. */
static void (*fw_spin)(void);

/* IN token with retries while the device NAKs (it is busy in its loop). */
FW_FN int in_pkt(uint32_t ea, uint8_t *buf, uint32_t *len, int *tog)
{
	int rc = FW_NAK;
	for (int t = 0; t < 20 && (rc = fw_host_in(ea, buf, len, tog)) == FW_NAK; t++)
		fw_spin();
	fw_spin();
	return rc;
}

FW_FN int out_pkt(uint32_t ea, const uint8_t *buf, uint32_t len, int *tog)
{
	int rc = FW_NAK;
	for (int t = 0; t < 20 && (rc = fw_host_out(ea, buf, len, tog)) == FW_NAK; t++)
		fw_spin();
	fw_spin();
	return rc;
}

/* A control transfer as a host controller does it. Returns the bytes of
 * the IN data stage (or 0), -1 on STALL or a protocol error. Checks the
 * toggles: data stage DATA1, DATA0, ...; status stage DATA1. */
FW_FN int control(uint8_t bm, uint8_t req, uint16_t val, uint16_t idx, uint16_t wlen,
		   uint8_t *data, int *bad_toggle)
{
	uint8_t s[8] = { bm, req, (uint8_t)val, (uint8_t)(val >> 8), (uint8_t)idx, (uint8_t)(idx >> 8),
			 (uint8_t)wlen, (uint8_t)(wlen >> 8) };
	uint8_t pkt[64];
	uint32_t len;
	int tog, want = 1, got = 0;
	if (fw_host_setup(s) != FW_ACK)
		return -1;
	fw_spin();
	if (bm & 0x80) {
		while (got < wlen) {
			int rc = in_pkt(0, pkt, &len, &tog);
			if (rc != FW_ACK)
				return -1;
			*bad_toggle |= tog != want;
			want ^= 1;
			memcpy(data + got, pkt, len);
			got += (int)len;
			if (len < 64)
				break;
		}
		if (out_pkt(0, NULL, 0, &tog) != FW_ACK)
			return -1;
		*bad_toggle |= tog != 1;
		return got;
	}
	for (int off = 0; off < wlen; off += 64) {
		uint32_t n = wlen - off < 64 ? (uint32_t)(wlen - off) : 64u;
		if (out_pkt(0, data + off, n, &tog) != FW_ACK)
			return -1;
		*bad_toggle |= tog != want;
		want ^= 1;
	}
	if (in_pkt(0, pkt, &len, &tog) != FW_ACK || len != 0)
		return -1;
	*bad_toggle |= tog != 1;
	return 0;
}

/* ---- DMA1 channel 1 fed by the dual ADC -------------------------------- */

/* Runs n conversions: each is a DMA transfer of the next sample word into
 * the buffer at CMAR when the ADC runs and the channel is enabled; returns
 * true when an interrupt is pending (TCIE/HTIE/TEIE). */
FW_FN bool fw_adc_convert(uint32_t n)
{
	uint32_t *isr = fw_plain(NG_DMA_ISR);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t ccr = *fw_plain(NG_DMA_CCR1);
		if (!fw_model.adc_running || !(ccr & NG_DMA_CCR_EN) || fw_model.next_sample >= fw_model.nsamples)
			break;
		uint32_t *cndtr = fw_plain(NG_DMA_CNDTR1);
		uint32_t total = 2u * NG_NOISE_HALF;
		if (*fw_plain(NG_DMA_CMAR1) != (uint32_t)(uintptr_t)fw_model.dma_mem ||
		    *fw_plain(NG_DMA_CPAR1) != NG_ADC_DR(NG_ADC1)) {
			fw_model_error("DMA channel 1 not pointed at ADC1_DR -> the buffer", *fw_plain(NG_DMA_CMAR1));
			return false;
		}
		fw_model.dma_mem[fw_model.dma_pos++] = fw_model.samples[fw_model.next_sample++];
		(*cndtr)--;
		if (fw_model.dma_pos == total / 2u)
			*isr |= NG_DMA_HTIF1 | NG_DMA_GIF1;
		if (*cndtr == 0) {
			*isr |= NG_DMA_TCIF1 | NG_DMA_GIF1;
			if (ccr & NG_DMA_CCR_CIRC) {
				*cndtr = total;
				fw_model.dma_pos = 0;
			} else {
				*fw_plain(NG_DMA_CCR1) = ccr & ~NG_DMA_CCR_EN;
			}
		}
	}
	uint32_t ccr = *fw_plain(NG_DMA_CCR1);
	return ((*isr & NG_DMA_HTIF1) && (ccr & NG_DMA_CCR_HTIE)) ||
	       ((*isr & NG_DMA_TCIF1) && (ccr & NG_DMA_CCR_TCIE)) ||
	       ((*isr & NG_DMA_TEIF1) && (ccr & NG_DMA_CCR_TEIE));
}

#endif
