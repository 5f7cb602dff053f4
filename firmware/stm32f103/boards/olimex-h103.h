/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Olimex STM32-H103 (STM32F103RBT6: 128 KiB flash, 20 KiB RAM).
 * Sources: Olimex STM32-H103 schematic and user manual (8 MHz crystal Q1,
 * status LED on PC12 lit when low, "USB_DISC" PC11 switching the D+ pull-up
 * through a transistor: low = connected); Chopstx
 * board/board-olimex-stm32-h103.h (PC11 open-drain "CLEAR_TO_ENABLE", PC12
 * "CLEAR_TO_EMIT", PC0/PC1 "AN10/AN11 for NeuG", ADC2 1.5-cycle sampling). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "Olimex STM32-H103"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  128
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOC
#define NG_BOARD_LED_PIN   12
#define NG_BOARD_LED_ACTIVE_HIGH 0
#define NG_BOARD_PULLUP_PORT NG_GPIOC
#define NG_BOARD_PULLUP_PIN  11
#define NG_BOARD_PULLUP_ACTIVE_HIGH 0
#define NG_BOARD_PULLUP_OPEN_DRAIN 1
#define NG_BOARD_AN1_CH 10
#define NG_BOARD_AN1_PORT NG_GPIOC
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 11
#define NG_BOARD_AN2_PORT NG_GPIOC
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
