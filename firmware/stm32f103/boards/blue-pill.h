/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "Blue Pill" STM32F103C8T6 boards (64 KiB flash, 20 KiB RAM).
 * Sources: stm32duino wiki "Blue Pill" and its schematic (8 MHz crystal,
 * LED PC13 to 3V3 through a resistor, i.e. lit when PC13 is low, R10 1.5k
 * D+ pull-up on PA12 to 3V3; many boards fit 10k there, which some hosts
 * reject: replace R10 by 1.5k); Chopstx board/board-blue-pill.h (HSE 8 MHz,
 * PLL x9, LED PC13 "CLEAR_TO_EMIT"). NeuG's default ADC inputs IN0/IN1. */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "Blue Pill"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  64
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOC
#define NG_BOARD_LED_PIN   13
#define NG_BOARD_LED_ACTIVE_HIGH 0
/* Fixed 1.5k pull-up: re-enumerate by driving PA12 (D+) low briefly. */
#define NG_BOARD_PULLUP_FIXED 1
#define NG_BOARD_AN1_CH 0
#define NG_BOARD_AN1_PORT NG_GPIOA
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 1
#define NG_BOARD_AN2_PORT NG_GPIOA
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
