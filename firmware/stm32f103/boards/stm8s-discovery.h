/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The ST-Link/V2 part of ST's STM8S-DISCOVERY kit (STM32F103C8T6: 64 KiB
 * flash, 20 KiB RAM), as NeuG supports it. Sources: ST UM0817 (STM8S-DISCOVERY
 * user manual, schematic: 8 MHz crystal X2, fixed D+ pull-up); Chopstx
 * board/board-stm8s-discovery.h (HSE 8 MHz, PLL x9, LED PA8 1:ON, "No external
 * DISCONNECT/RENUM circuit", PA0/PA1 AN0/AN1 with pull-up). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "STM8S Discovery"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  64
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOA
#define NG_BOARD_LED_PIN   8
#define NG_BOARD_LED_ACTIVE_HIGH 1
/* Fixed pull-up: re-enumerate by driving PA12 (D+) low briefly. */
#define NG_BOARD_PULLUP_FIXED 1
#define NG_BOARD_AN1_CH 0
#define NG_BOARD_AN1_PORT NG_GPIOA
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 1
#define NG_BOARD_AN2_PORT NG_GPIOA
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
