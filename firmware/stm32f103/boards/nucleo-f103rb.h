/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ST NUCLEO-F103RB (STM32F103RBT6: 128 KiB flash, 20 KiB RAM).
 * Sources: ST UM1724 (STM32 Nucleo-64 user manual): section 6.7.1, the
 * on-board ST-LINK's MCO gives an 8 MHz clock on PD0/OSC_IN (HSE bypass,
 * the default solder-bridge setting; X3 is not fitted); LD2 user LED on PA5
 * (D13), lit when high. USB is not wired: connect a cable to PA11 (D-) and
 * PA12 (D+) with a 1.5k pull-up from PA12 to 3V3 (Chopstx
 * board/board-st-nucleo-f103.h describes the wiring; it uses a soldered
 * 8 MHz X3 instead: set NG_BOARD_HSE_BYPASS to 0 for that). ADC2 inputs:
 * IN8 = PB0, IN9 = PB1 (NeuG's ADC driver for ST_NUCLEO_F103). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "ST Nucleo F103"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 1
#define NG_BOARD_FLASH_KB  128
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOA
#define NG_BOARD_LED_PIN   5
#define NG_BOARD_LED_ACTIVE_HIGH 1
#define NG_BOARD_PULLUP_FIXED 1
#define NG_BOARD_AN1_CH 8
#define NG_BOARD_AN1_PORT NG_GPIOB
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 9
#define NG_BOARD_AN2_PORT NG_GPIOB
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
