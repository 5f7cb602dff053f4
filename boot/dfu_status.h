/* SPDX-License-Identifier: GPL-3.0-or-later */
/* DFU 1.1 status codes (section 6.1.2, bStatus of DFU_GETSTATUS), defined
 * once: the update state machine (boot/update.c) returns them and the DFU
 * interface (usb/dfu.h includes this header) reports them. In boot/ because
 * boot/ sits below usb/. Freestanding. */
#ifndef NG_BOOT_DFU_STATUS_H
#define NG_BOOT_DFU_STATUS_H

#define NG_DFU_OK              0x00u
#define NG_DFU_ERR_TARGET      0x01u
#define NG_DFU_ERR_FILE        0x02u
#define NG_DFU_ERR_WRITE       0x03u
#define NG_DFU_ERR_ERASE       0x04u
#define NG_DFU_ERR_CHECK_ERASED 0x05u
#define NG_DFU_ERR_PROG        0x06u
#define NG_DFU_ERR_VERIFY      0x07u
#define NG_DFU_ERR_ADDRESS     0x08u
#define NG_DFU_ERR_NOTDONE     0x09u
#define NG_DFU_ERR_FIRMWARE    0x0Au
#define NG_DFU_ERR_VENDOR      0x0Bu
#define NG_DFU_ERR_USBR        0x0Cu
#define NG_DFU_ERR_POR         0x0Du
#define NG_DFU_ERR_UNKNOWN     0x0Eu
#define NG_DFU_ERR_STALLEDPKT  0x0Fu

#endif
