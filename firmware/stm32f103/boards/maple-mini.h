/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LeafLabs Maple Mini (STM32F103CBT6: 128 KiB flash, 20 KiB RAM).
 * Sources: LeafLabs maple-mini schematic r2 (8 MHz crystal, LED on PB1 to
 * GND: lit when high, "USB DISC" PB9 driving a PNP that connects the 1.5k
 * D+ pull-up when PB9 is low); Chopstx board/board-maple-mini.h (LED PB1
 * 1:ON, PB9 "CLEAR_TO_ENABLE", PA0/PA1 AN0/AN1). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "Maple Mini"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  128
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOB
#define NG_BOARD_LED_PIN   1
#define NG_BOARD_LED_ACTIVE_HIGH 1
#define NG_BOARD_PULLUP_PORT NG_GPIOB
#define NG_BOARD_PULLUP_PIN  9
#define NG_BOARD_PULLUP_ACTIVE_HIGH 0
#define NG_BOARD_PULLUP_OPEN_DRAIN 0
#define NG_BOARD_AN1_CH 0
#define NG_BOARD_AN1_PORT NG_GPIOA
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 1
#define NG_BOARD_AN2_PORT NG_GPIOA
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
