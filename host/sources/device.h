/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A NeuG device (real or emulated) as a generator backend: the device runs
 * its own pipeline and health tests, so the host reads finished bytes in the
 * requested mode. Used by host/sources/gen.c for --source=device[:TTY].
 *
 * The tty: the first ttyACM* whose USB device is 234b:0001 (sysfs) unless one
 * is named; opened raw (cfmakeraw: no echo, no line editing), the mode set
 * by parity (none = conditioned, odd = crc32, even = raw), DTR dropped, the
 * input flushed, DTR raised: what arrives after that is the new mode's.
 * Identification: GET_INFO (libusb, host/devtools/info.h) is asked at open; a device
 * that answers index 0 (its mode) is identified as a NeuG. One that does not
 * (a pty, another USB serial adapter, a wrong /dev/neug link) is still read,
 * but nothing that credits entropy may credit it on trust
 * (ng_device_gen_identified; feed and egd refuse it without --credit).
 *
 * The host tests every 32-byte block received, in every mode: a block of
 * zeros, or one equal to the block before it (a continuous test), latches a
 * failure (NG_EXIT_HEALTH). Then, in raw mode, the words go through the
 * core's SP 800-90B tests (a pipeline in raw mode: intermittent failures are
 * counted; a persistent failure latches too); in crc32 mode the bytes go
 * through NeuG's CRC-level tests (the core's ng_neug_tests: RCT cutoff 9, APT
 * 64/18 and 4096/315 on bytes): a 32-byte block in which one fires is
 * dropped. After a latched failure the queue is dropped and every read
 * returns -1: nothing after it is returned.
 *
 * Unplug and replug: a read that fails (EIO, hang-up) is reported on the log
 * ("unplugged ... waiting"), the tty closed, and the same path (named tty),
 * or the first NeuG tty (preferring the same serial), polled every 250 ms;
 * when it is back it is opened and set up as above. A device that was
 * identified at open must identify itself again (GET_INFO, asked for up to
 * 2 s), or the read fails (NG_EXIT_IO). Bytes in flight at the unplug (not
 * yet read from the tty, or an incomplete 32-byte block) are discarded,
 * never returned twice: every byte returned was read once from the device,
 * in order.
 * Every wait also watches the stop request (loop.h): a signal ends a read
 * within one poll.
 * No output for NG_DEVICE_STALL_MS: GET_INFO is asked (libusb); a latched
 * persistent failure there ends the read with NG_EXIT_HEALTH. */
#ifndef NG_DEVICE_H
#define NG_DEVICE_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/pipeline.h"

typedef struct ng_device_gen ng_device_gen;

/* Opens the device and selects the output mode (NG_MODE_*) with line coding.
 * tty: "/dev/ttyACM0" and the like, or NULL for the first NeuG device found.
 * On failure returns NULL, the message in err (naming the device and the
 * reason) and the exit status (NG_EXIT_IO, NG_EXIT_HEALTH) in *exit_code. */
ng_device_gen *ng_device_gen_open(const char *tty, uint32_t mode,
				  char *err, size_t errlen, int *exit_code);
/* Reads up to len bytes. Returns the count (> 0), or -1 on failure with
 * the reason from ng_device_gen_error and the exit status from
 * ng_device_gen_exit_code (a latched device health failure: NG_EXIT_HEALTH). */
long ng_device_gen_read(ng_device_gen *d, uint8_t *buf, size_t len);
const char *ng_device_gen_error(const ng_device_gen *d);
int ng_device_gen_exit_code(const ng_device_gen *d);
/* "device /dev/ttyACM0 (NeuG 1.0, serial ...)", for messages and summaries. */
const char *ng_device_gen_desc(const ng_device_gen *d);
/* What the device reports (GET_INFO), mapped onto the pipeline's stats;
 * fields the device does not report are 0. */
void ng_device_gen_get_stats(const ng_device_gen *d, ng_pipeline_stats *st);
/* true while the tty is open (false from an unplug until the device is back). */
bool ng_device_gen_present(const ng_device_gen *d);
/* The device's serial number (GET_INFO's strings), "" when unknown. */
const char *ng_device_gen_serial(const ng_device_gen *d);
/* true when the device answered GET_INFO at open (a NeuG); false: why not,
 * in ng_device_gen_ident_error ("'/dev/pts/3' is not a USB tty ..."). */
bool ng_device_gen_identified(const ng_device_gen *d);
const char *ng_device_gen_ident_error(const ng_device_gen *d);
/* Asks GET_INFO again (libusb control requests) when the device is there,
 * so that ng_device_gen_get_stats is current; a conditioned-mode read does
 * not otherwise ask. */
void ng_device_gen_refresh(ng_device_gen *d);
/* fn(user) is called about every 250-500 ms while a read waits: no data
 * yet, or the device unplugged and not back. It may look at the device
 * (present, stats) but not read it. */
void ng_device_gen_set_wait(ng_device_gen *d, void (*fn)(void *user), void *user);
void ng_device_gen_close(ng_device_gen *d);

#define NG_DEVICE_STALL_MS 3000

/* The termios the device is read with, for mode (NG_MODE_*): raw, 8 bits,
 * parity none/odd/even. (A pty drops PARENB: only a real tty keeps it.) */
#include <termios.h>
void ng_device_termios(struct termios *t, uint32_t mode);

/* A stop request (a signal, loop.h) ends a read at once, whether it waits
 * for data or for a replug: it then fails with NG_EXIT_IO, "interrupted". */

/* Finds the first ttyACM* of a NeuG (idVendor 234b, idProduct 0001) under
 * sysfs ("/sys", or a test tree); serial non-NULL: prefer that serial.
 * Writes "/dev/ttyACMn" to out. 0, or -1 when there is none. */
int ng_device_find(const char *sysfs, const char *serial, char *out, size_t len);

/* The device as a raw-sample source (raw mode; for `neug assess`): words as
 * the device sends them, tested on the host (counted). */
#include "source.h"
ng_source *ng_device_source_open(const char *tty, char *err, size_t errlen);

#endif
