/* SPDX-License-Identifier: GPL-3.0-or-later */
/* STM32F103 registers used by NeuG, from RM0008 Rev 21 (section numbers in
 * the comments) and the Cortex-M3 TRM / ARMv7-M ARM (SCB, NVIC, SysTick).
 *
 * Every access goes through NG_RD/NG_WR on a 32-bit address. On the target
 * they are plain volatile loads/stores. With NG_FW_HOST_MODEL defined (host
 * unit tests), they call ng_model_read/ng_model_write, which a test provides
 * to model the peripheral's write semantics (toggle-on-write, clear-on-write-0,
 * DMA transfers) in ordinary memory. */
#ifndef NG_STM32F103_H
#define NG_STM32F103_H
#include <stdint.h>

#ifdef NG_FW_HOST_MODEL
uint32_t ng_model_read(uint32_t addr);
void ng_model_write(uint32_t addr, uint32_t val);
#define NG_RD(a)    ng_model_read((uint32_t)(a))
#define NG_WR(a, v) ng_model_write((uint32_t)(a), (uint32_t)(v))
/* A RAM address as the DMA controller sees it (host: low 32 bits only; the
 * model maps it back through the test's knowledge of the buffer). */
#define NG_DMA_ADDR(p) ((uint32_t)(uintptr_t)(p))
#else
#define NG_RD(a)    (*(volatile uint32_t *)(uintptr_t)(a))
#define NG_WR(a, v) (*(volatile uint32_t *)(uintptr_t)(a) = (uint32_t)(v))
#define NG_DMA_ADDR(p) ((uint32_t)(uintptr_t)(p))
#endif
#define NG_SET(a, m) NG_WR((a), NG_RD(a) | (uint32_t)(m))
#define NG_CLR(a, m) NG_WR((a), NG_RD(a) & ~(uint32_t)(m))

/* ---- RCC, RM0008 section 7.3 ---------------------------------------- */
#define NG_RCC            0x40021000u
#define NG_RCC_CR         (NG_RCC + 0x00u)
#define  NG_RCC_CR_HSION    (1u << 0)
#define  NG_RCC_CR_HSIRDY   (1u << 1)
#define  NG_RCC_CR_HSEON    (1u << 16)
#define  NG_RCC_CR_HSERDY   (1u << 17)
#define  NG_RCC_CR_HSEBYP   (1u << 18)
#define  NG_RCC_CR_PLLON    (1u << 24)
#define  NG_RCC_CR_PLLRDY   (1u << 25)
#define NG_RCC_CFGR       (NG_RCC + 0x04u)
#define  NG_RCC_CFGR_SW_MASK   (3u << 0)
#define  NG_RCC_CFGR_SW_HSI    (0u << 0)
#define  NG_RCC_CFGR_SW_PLL    (2u << 0)
#define  NG_RCC_CFGR_SWS_HSI   (0u << 2)
#define  NG_RCC_CFGR_SWS_MASK  (3u << 2)
#define  NG_RCC_CFGR_SWS_PLL   (2u << 2)
#define  NG_RCC_CFGR_PPRE1_DIV2 (4u << 8)   /* APB1 = HCLK / 2 (36 MHz max) */
#define  NG_RCC_CFGR_ADCPRE_DIV4 (1u << 14)
#define  NG_RCC_CFGR_ADCPRE_DIV6 (2u << 14)
#define  NG_RCC_CFGR_ADCPRE_DIV8 (3u << 14)
#define  NG_RCC_CFGR_PLLSRC_HSE (1u << 16)
#define  NG_RCC_CFGR_PLLMUL(m) ((uint32_t)((m) - 2u) << 18) /* x2..x16 */
#define  NG_RCC_CFGR_USBPRE_DIV1 (1u << 22) /* 0: PLL / 1.5 (72 -> 48 MHz) */
#define NG_RCC_APB2RSTR   (NG_RCC + 0x0Cu)
#define NG_RCC_APB1RSTR   (NG_RCC + 0x10u)
#define NG_RCC_AHBENR     (NG_RCC + 0x14u)
#define  NG_RCC_AHBENR_DMA1EN (1u << 0)
#define  NG_RCC_AHBENR_CRCEN  (1u << 6)
#define NG_RCC_APB2ENR    (NG_RCC + 0x18u)
#define  NG_RCC_APB2ENR_AFIOEN (1u << 0)
#define  NG_RCC_APB2ENR_IOPAEN (1u << 2)
#define  NG_RCC_APB2ENR_IOPBEN (1u << 3)
#define  NG_RCC_APB2ENR_IOPCEN (1u << 4)
#define  NG_RCC_APB2ENR_ADC1EN (1u << 9)
#define  NG_RCC_APB2ENR_ADC2EN (1u << 10)
#define NG_RCC_APB1ENR    (NG_RCC + 0x1Cu)
#define  NG_RCC_APB1ENR_USBEN (1u << 23)

/* ---- Flash interface, RM0008 section 3.3.3 (FLASH_ACR) --------------- */
#define NG_FLASH_ACR      0x40022000u
#define  NG_FLASH_ACR_LATENCY1 (1u << 0) /* 24 MHz < SYSCLK <= 48 MHz */
#define  NG_FLASH_ACR_LATENCY2 (2u << 0) /* 48 MHz < SYSCLK <= 72 MHz */
#define  NG_FLASH_ACR_PRFTBE   (1u << 4)

/* ---- GPIO, RM0008 section 9.2 --------------------------------------- */
#define NG_GPIOA          0x40010800u
#define NG_GPIOB          0x40010C00u
#define NG_GPIOC          0x40011000u
#define NG_GPIO_CRL(p)    ((p) + 0x00u) /* 4 bits per pin: CNF[1:0] MODE[1:0] */
#define NG_GPIO_CRH(p)    ((p) + 0x04u)
#define NG_GPIO_IDR(p)    ((p) + 0x08u)
#define NG_GPIO_ODR(p)    ((p) + 0x0Cu)
#define NG_GPIO_BSRR(p)   ((p) + 0x10u) /* write 1: set (bits 0-15) / reset (16-31) */
#define NG_GPIO_BRR(p)    ((p) + 0x14u)
#define NG_GPIO_MODE_ANALOG   0x0u /* CNF 00 MODE 00 */
#define NG_GPIO_MODE_IN_PULL  0x8u /* CNF 10 MODE 00; ODR bit: 1 pull-up, 0 pull-down */
#define NG_GPIO_MODE_OUT_PP   0x2u /* CNF 00 MODE 10: push-pull, 2 MHz */
#define NG_GPIO_MODE_OUT_OD   0x6u /* CNF 01 MODE 10: open-drain, 2 MHz */

/* ---- DMA1, RM0008 section 13.4 -------------------------------------- */
#define NG_DMA1           0x40020000u
#define NG_DMA_ISR        (NG_DMA1 + 0x00u)
#define NG_DMA_IFCR       (NG_DMA1 + 0x04u)
#define  NG_DMA_GIF1  (1u << 0)
#define  NG_DMA_TCIF1 (1u << 1)
#define  NG_DMA_HTIF1 (1u << 2)
#define  NG_DMA_TEIF1 (1u << 3)
#define NG_DMA_CCR1       (NG_DMA1 + 0x08u)
#define  NG_DMA_CCR_EN      (1u << 0)
#define  NG_DMA_CCR_TCIE    (1u << 1)
#define  NG_DMA_CCR_HTIE    (1u << 2)
#define  NG_DMA_CCR_TEIE    (1u << 3)
#define  NG_DMA_CCR_CIRC    (1u << 5)
#define  NG_DMA_CCR_MINC    (1u << 7)
#define  NG_DMA_CCR_PSIZE32 (2u << 8)
#define  NG_DMA_CCR_MSIZE32 (2u << 10)
#define  NG_DMA_CCR_PL_HIGH (2u << 12)
#define NG_DMA_CNDTR1     (NG_DMA1 + 0x0Cu)
#define NG_DMA_CPAR1      (NG_DMA1 + 0x10u)
#define NG_DMA_CMAR1      (NG_DMA1 + 0x14u)

/* ---- ADC1/ADC2, RM0008 section 11.12 -------------------------------- */
#define NG_ADC1           0x40012400u
#define NG_ADC2           0x40012800u
#define NG_ADC_SR(a)      ((a) + 0x00u)
#define NG_ADC_CR1(a)     ((a) + 0x04u)
#define  NG_ADC_CR1_SCAN          (1u << 8)
#define  NG_ADC_CR1_DUALMOD_REGSIM (6u << 16) /* 0110: regular simultaneous only */
#define  NG_ADC_CR1_DUALMOD_FASTINT (7u << 16) /* 0111: fast interleaved only (11.9.5) */
#define NG_ADC_CR2(a)     ((a) + 0x08u)
#define  NG_ADC_CR2_ADON    (1u << 0)
#define  NG_ADC_CR2_CONT    (1u << 1)
#define  NG_ADC_CR2_CAL     (1u << 2)
#define  NG_ADC_CR2_RSTCAL  (1u << 3)
#define  NG_ADC_CR2_DMA     (1u << 8)
#define  NG_ADC_CR2_EXTSEL_SWSTART (7u << 17)
#define  NG_ADC_CR2_EXTTRIG (1u << 20)
#define  NG_ADC_CR2_SWSTART (1u << 22)
#define  NG_ADC_CR2_TSVREFE (1u << 23)
#define NG_ADC_SMPR1(a)   ((a) + 0x0Cu) /* channels 10..17, 3 bits each */
#define NG_ADC_SMPR2(a)   ((a) + 0x10u) /* channels 0..9 */
#define NG_ADC_SQR1(a)    ((a) + 0x2Cu) /* L[3:0] at bits 23:20 = length - 1 */
#define NG_ADC_SQR2(a)    ((a) + 0x30u)
#define NG_ADC_SQR3(a)    ((a) + 0x34u) /* SQ1 bits 4:0, SQ2 bits 9:5 */
#define NG_ADC_DR(a)      ((a) + 0x4Cu) /* dual mode: ADC1 DR[31:16] = ADC2 data */
#define NG_ADC_SMP_1P5    0u            /* 1.5 ADC clock cycles */
#define NG_ADC_CH_TEMP    16u
#define NG_ADC_CH_VREFINT 17u

/* ---- CRC calculation unit, RM0008 section 4.4 ----------------------- */
#define NG_CRC            0x40023000u
#define NG_CRC_DR         (NG_CRC + 0x00u)
#define NG_CRC_CR         (NG_CRC + 0x08u)
#define  NG_CRC_CR_RESET  (1u << 0)

/* ---- Device electronic signature, RM0008 section 30.2 ---------------- */
#define NG_UID_BASE       0x1FFFF7E8u /* 96 bits: three 32-bit words */
#define NG_FLASH_SIZE_REG 0x1FFFF7E0u /* 16 bits: flash size in KiB */

/* ---- USB full-speed device, RM0008 section 23.5 ---------------------- */
#define NG_USB            0x40005C00u
#define NG_USB_EPR(n)     (NG_USB + 4u * (uint32_t)(n)) /* n = 0..7 */
#define NG_USB_CNTR       (NG_USB + 0x40u)
#define NG_USB_ISTR       (NG_USB + 0x44u)
#define NG_USB_FNR        (NG_USB + 0x48u)
#define NG_USB_DADDR      (NG_USB + 0x4Cu)
#define NG_USB_BTABLE     (NG_USB + 0x50u)
#define NG_USB_PMA        0x40006000u /* 512 bytes as 256 x 16-bit, each in a 32-bit word */

/* ---- Cortex-M3 system control space (ARMv7-M ARM B3.2, B3.3, B3.4) --- */
#define NG_SYST_CSR       0xE000E010u
#define NG_SYST_RVR       0xE000E014u
#define NG_SYST_CVR       0xE000E018u
#define NG_NVIC_ISER(n)   (0xE000E100u + 4u * (uint32_t)(n))
#define NG_NVIC_ICER(n)   (0xE000E180u + 4u * (uint32_t)(n))
#define NG_NVIC_ICPR(n)   (0xE000E280u + 4u * (uint32_t)(n))
#define NG_NVIC_IPR(n)    (0xE000E400u + (uint32_t)(n)) /* byte access */
#define NG_SCB_AIRCR      0xE000ED0Cu
#define  NG_SCB_AIRCR_SYSRESETREQ (0x05FA0000u | (1u << 2))
#define NG_SCB_VTOR       0xE000ED08u

/* Interrupt numbers, RM0008 table 63. */
#define NG_IRQ_DMA1_CH1      11u
#define NG_IRQ_USB_LP_CAN_RX0 20u

/* PRIMASK: mask interrupts around a few instructions (ARMv7-M B1.4.3). */
#ifdef NG_FW_HOST_MODEL
void ng_model_irq(int enable);
#define ng_irq_disable() ng_model_irq(0)
#define ng_irq_enable()  ng_model_irq(1)
void ng_model_wfi(void);
#define ng_wfi() ng_model_wfi()
#else
#define ng_irq_disable() __asm__ volatile("cpsid i" ::: "memory")
#define ng_irq_enable()  __asm__ volatile("cpsie i" ::: "memory")
#define ng_wfi()         __asm__ volatile("wfi" ::: "memory")
#endif

static inline void ng_nvic_enable(uint32_t irq)
{
	NG_WR(NG_NVIC_ICPR(irq >> 5), 1u << (irq & 31u));
	NG_WR(NG_NVIC_ISER(irq >> 5), 1u << (irq & 31u));
}

static inline void ng_nvic_disable(uint32_t irq)
{
	NG_WR(NG_NVIC_ICER(irq >> 5), 1u << (irq & 31u));
}

#endif
