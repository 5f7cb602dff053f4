/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GPIO set-up for the selected board (one header in boards/): the status LED, the D+
 * pull-up and the two ADC2 noise inputs (RM0008 9.1, 9.2).
 * The noise inputs are configured as inputs with the internal pull-up
 * (CNF 10, ODR 1), as NeuG does: the ADC then samples a pin held at VDD
 * through about 40 kOhm, whose noise is what we want, not an analog signal.
 * On boards with a fixed D+ pull-up (NG_BOARD_PULLUP_FIXED) PA12 is driven
 * low from here until the USB driver connects. */
#include "fw.h"
#include "board.h"
#include "stm32f103.h"

#define NG_AFIO_MAPR 0x40010004u
#define NG_AFIO_MAPR_SWJ_NOJTAG (2u << 24) /* JTAG-DP off, SW-DP on */

static void ng_gpio_mode(uint32_t port, uint32_t pin, uint32_t mode)
{
	uint32_t reg = pin < 8 ? NG_GPIO_CRL(port) : NG_GPIO_CRH(port);
	uint32_t sh = (pin & 7u) * 4u;
	NG_WR(reg, (NG_RD(reg) & ~(0xFu << sh)) | (mode << sh));
}

static void ng_gpio_put(uint32_t port, uint32_t pin, bool high)
{
	NG_WR(NG_GPIO_BSRR(port), high ? 1u << pin : 1u << (pin + 16u));
}

void ng_board_led(bool on)
{
	ng_gpio_put(NG_BOARD_LED_PORT, NG_BOARD_LED_PIN, on == (NG_BOARD_LED_ACTIVE_HIGH != 0));
}

void ng_board_usb_connect(bool on)
{
#if NG_BOARD_PULLUP_FIXED
	/* USB 2.0 7.1.7.3: holding D+ low for more than 2.5 us is a detach.
	 * PA12's ODR bit is 0 from ng_board_init on (nothing else writes
	 * it), so "off" is PA12 an output, "on" a floating input (the
	 * transceiver takes over). */
	ng_gpio_mode(NG_GPIOA, 12, on ? 0x4u : NG_GPIO_MODE_OUT_PP);
#else
	ng_gpio_put(NG_BOARD_PULLUP_PORT, NG_BOARD_PULLUP_PIN, on == (NG_BOARD_PULLUP_ACTIVE_HIGH != 0));
#endif
}

void ng_board_init(void)
{
	NG_SET(NG_RCC_APB2ENR, NG_RCC_APB2ENR_AFIOEN | NG_RCC_APB2ENR_IOPAEN |
			       NG_RCC_APB2ENR_IOPBEN | NG_RCC_APB2ENR_IOPCEN);
#if NG_BOARD_PULLUP_FIXED
	/* A fixed 1.5k pull-up on D+: the host sees a device from power-up.
	 * Drive D+ low from the first GPIO write until USB is ready
	 * (ng_board_usb_connect(true) releases it), as the boards' own
	 * reference code does, so the host does not try to enumerate a device
	 * that is still in its self-test. */
	ng_gpio_put(NG_GPIOA, 12, false);
	ng_board_usb_connect(false);
#endif
#if NG_BOARD_JTAG_OFF
	/* MAPR is 0 after the reset (RM0008 9.4.2) and nothing else remaps:
	 * written whole (SWJ_CFG reads back undefined anyway) */
	NG_WR(NG_AFIO_MAPR, NG_AFIO_MAPR_SWJ_NOJTAG);
#endif
	ng_board_led(false);
	ng_gpio_mode(NG_BOARD_LED_PORT, NG_BOARD_LED_PIN, NG_GPIO_MODE_OUT_PP);
#if !NG_BOARD_PULLUP_FIXED
	ng_board_usb_connect(false);
	ng_gpio_mode(NG_BOARD_PULLUP_PORT, NG_BOARD_PULLUP_PIN,
		     NG_BOARD_PULLUP_OPEN_DRAIN ? NG_GPIO_MODE_OUT_OD : NG_GPIO_MODE_OUT_PP);
#endif
}

void ng_board_noise_pins(void)
{
	ng_gpio_put(NG_BOARD_AN1_PORT, NG_BOARD_AN1_PIN, true); /* ODR 1: pull-up */
	ng_gpio_mode(NG_BOARD_AN1_PORT, NG_BOARD_AN1_PIN, NG_GPIO_MODE_IN_PULL);
	ng_gpio_put(NG_BOARD_AN2_PORT, NG_BOARD_AN2_PIN, true);
	ng_gpio_mode(NG_BOARD_AN2_PORT, NG_BOARD_AN2_PIN, NG_GPIO_MODE_IN_PULL);
}
