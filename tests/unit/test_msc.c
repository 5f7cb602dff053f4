/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usb/msc.c + usb/scsi.c + the generated FAT12 disk, through the fake dcd
 * and a Bulk-Only host: every SCSI command, the BOT error cases (§6.6,
 * §6.7), and the disk read back over BOT checked with fsck.fat and mtools
 * (COPYING must equal /usr/share/common-licenses/GPL-3). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "disk.h"
#include "fakes/bot_host.h"
#include "fakes/fake_dcd.h"
#include "fakes/msc_desc.h"
#include "msc.h"
#include "usbd.h"

static ng_usbd_ctx U;
static fk_dcd F;
static ng_msc_ctx M;
static bot_host H;

static void start(void)
{
	memset(&F, 0, sizeof F);
	ng_msc_medium m = {ng_disk_sectors(), ng_disk_read, NULL, "FSIJ", "NeuG disk", "1.0", "0123456789ABCDEF01234567"};
	ng_msc_init(&M, 0, 0x83, 0x03, &m);
	const ng_usbd_class *cl[1] = {&M.cls};
	ng_usbd_init(&U, &fk_ops, &F, &desc, cl, 1);
	ng_usbd_connect(&U, true);
	fk_bus_reset(&F);
	fk_control(&F, 0x00, 5, 3, 0, 0, NULL, NULL);
	fk_control(&F, 0x00, 9, 1, 0, 0, NULL, NULL);
	H = (bot_host){&F, 0x83, 0x03, 0, 0};
}

static bot_result cmd(const uint8_t *cdb, uint8_t n, uint32_t len, bool in, uint8_t *data)
{
	return bot_cmd(&H, cdb, n, len, in, data);
}

static void sense_of(uint8_t *key, uint8_t *asc)
{
	uint8_t cdb[6] = {0x03, 0, 0, 0, 18, 0}, b[64];
	bot_result r = cmd(cdb, 6, 18, true, b);
	*key = r.ok && r.got == 18 ? (b[2] & 0x0F) : 0xFF;
	*asc = b[12];
}

static void test_class_requests(void)
{
	uint8_t b[8];
	uint16_t n;
	CHECK(fk_control(&F, 0xA1, 0xFE, 0, 0, 1, b, &n) == FK_OK && n == 1 && b[0] == 0, "GET_MAX_LUN = 0");
	CHECK(fk_control(&F, 0xA1, 0xFE, 1, 0, 1, b, &n) == FK_STALL, "GET_MAX_LUN with wValue 1 STALLs");
	CHECK(fk_control(&F, 0x21, 0xFF, 0, 0, 0, NULL, NULL) == FK_OK, "Bulk-Only Mass Storage Reset is acknowledged");
	CHECK(fk_control(&F, 0x21, 0xFF, 0, 0, 2, b, NULL) == FK_STALL, "BOT reset with wLength 2 STALLs");
	CHECK(fk_control(&F, 0xA1, 0x00, 0, 0, 1, b, &n) == FK_STALL, "unknown class request STALLs");
}

static void test_commands(void)
{
	uint8_t b[4096], key, asc;
	bot_result r;
	uint8_t tur[6] = {0};
	r = cmd(tur, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 0 && r.residue == 0 && r.csw_tag == H.tag, "TEST UNIT READY: good, tag echoed");

	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
	r = cmd(inq, 6, 36, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 36 && r.residue == 0 && !r.stall_in && b[0] == 0 && b[1] == 0x80 &&
	      b[4] == 31 && memcmp(b + 8, "FSIJ    ", 8) == 0 && memcmp(b + 16, "NeuG disk       ", 16) == 0 &&
	      memcmp(b + 32, "1.0 ", 4) == 0, "INQUIRY: 36 bytes, removable, vendor/product/revision");
	uint8_t inq5[6] = {0x12, 0, 0, 0, 5, 0};
	r = cmd(inq5, 6, 5, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 5 && b[4] == 31, "INQUIRY with allocation length 5");
	uint8_t vpd0[6] = {0x12, 1, 0x00, 0, 255, 0};
	r = cmd(vpd0, 6, 255, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 6 && b[1] == 0 && b[3] == 2 && b[4] == 0 && b[5] == 0x80 &&
	      r.residue == 249 && r.stall_in, "INQUIRY VPD 0x00 lists 0x00 and 0x80 (short: STALL, residue 249)");
	uint8_t vpd80[6] = {0x12, 1, 0x80, 0, 255, 0};
	r = cmd(vpd80, 6, 255, true, b);
	CHECK(r.ok && r.status == 0 && b[1] == 0x80 && b[3] == 24 && memcmp(b + 4, "0123456789ABCDEF01234567", 24) == 0,
	      "INQUIRY VPD 0x80: unit serial number");
	uint8_t vpd83[6] = {0x12, 1, 0x83, 0, 255, 0};
	r = cmd(vpd83, 6, 255, true, b);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && r.residue == 255 && key == 5 && asc == 0x24,
	      "INQUIRY VPD 0x83: failed, ILLEGAL REQUEST / INVALID FIELD IN CDB");
	sense_of(&key, &asc);
	CHECK(key == 0 && asc == 0, "REQUEST SENSE cleared the sense (NO SENSE)");
	uint8_t inqbad[6] = {0x12, 0, 0x80, 0, 36, 0};
	r = cmd(inqbad, 6, 36, true, b);
	CHECK(r.ok && r.status == 1, "INQUIRY with a page code but no EVPD fails");

	uint8_t rc10[10] = {0x25};
	r = cmd(rc10, 10, 8, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 8 && ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) == (int)ng_disk_sectors() - 1 &&
	      b[4] == 0 && b[5] == 0 && b[6] == 2 && b[7] == 0, "READ CAPACITY(10): last LBA %u, 512-byte blocks", ng_disk_sectors() - 1);
	uint8_t rfc[10] = {0x23, 0, 0, 0, 0, 0, 0, 0, 252, 0};
	r = cmd(rfc, 10, 252, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 12 && b[3] == 8 && ((b[4] << 24) | (b[5] << 16) | (b[6] << 8) | b[7]) == (int)ng_disk_sectors() &&
	      b[8] == 2 && b[10] == 2 && b[11] == 0 && r.residue == 240, "READ FORMAT CAPACITIES: one formatted-media descriptor");

	uint8_t ms6[6] = {0x1A, 0, 0x3F, 0, 192, 0};
	r = cmd(ms6, 6, 192, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 4 && b[0] == 3 && (b[2] & 0x80) && b[3] == 0 && r.residue == 188,
	      "MODE SENSE(6) all pages: header with WP set");
	uint8_t ms10[10] = {0x5A, 0, 0x3F, 0, 0, 0, 0, 0, 64, 0};
	r = cmd(ms10, 10, 64, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 8 && b[1] == 6 && (b[3] & 0x80), "MODE SENSE(10) all pages: header with WP set");
	uint8_t ms8[6] = {0x1A, 0, 0x08, 0, 192, 0};
	r = cmd(ms8, 6, 192, true, b);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && key == 5 && asc == 0x24, "MODE SENSE(6) caching page: not offered (INVALID FIELD IN CDB)");

	uint8_t pamr[6] = {0x1E, 0, 0, 0, 1, 0}, ssu[6] = {0x1B, 0, 0, 0, 1, 0};
	r = cmd(pamr, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 0, "PREVENT ALLOW MEDIUM REMOVAL: good");
	r = cmd(ssu, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 0, "START STOP UNIT: good");

	uint8_t w10[10] = {0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0};
	memset(b, 0x5A, 512);
	r = cmd(w10, 10, 512, false, b);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && r.got == 512 && r.residue == 512 && key == 7 && asc == 0x27,
	      "WRITE(10): data discarded, failed, DATA PROTECT / WRITE PROTECTED");
	uint8_t sync[10] = {0x35};
	r = cmd(sync, 10, 0, false, NULL);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && key == 5 && asc == 0x20, "SYNCHRONIZE CACHE: ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE");
	int all = 1;
	const uint8_t ops[] = {0x01, 0x04, 0x08, 0x15, 0x55, 0x9E, 0xA0, 0xC5, 0xFF};
	for (size_t i = 0; i < sizeof ops; i++) {
		uint8_t c[16] = {ops[i]};
		r = cmd(c, 16, 0, false, NULL);
		sense_of(&key, &asc);
		all &= r.ok && r.status == 1 && key == 5 && asc == 0x20;
	}
	CHECK(all, "other opcodes: ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE");

	uint32_t last = ng_disk_sectors() - 1;
	uint8_t rd[10] = {0x28, 0, (uint8_t)(last >> 24), (uint8_t)(last >> 16), (uint8_t)(last >> 8), (uint8_t)last, 0, 0, 2, 0};
	r = cmd(rd, 10, 1024, true, b);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && r.got == 0 && r.stall_in && r.residue == 1024 && key == 5 && asc == 0x21,
	      "READ(10) past the end: LBA OUT OF RANGE, IN stalled, residue 1024");
	uint8_t rd_far[10] = {0x28, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0};
	r = cmd(rd_far, 10, 512, true, b);
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && asc == 0x21, "READ(10) at LBA 0xFFFFFFFF: LBA OUT OF RANGE (no overflow)");
	uint8_t rd0[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	r = cmd(rd0, 10, 0, false, NULL);
	CHECK(r.ok && r.status == 0, "READ(10) of 0 blocks: good, no data");
	uint8_t rdlast[10] = {0x28, 0, (uint8_t)(last >> 24), (uint8_t)(last >> 16), (uint8_t)(last >> 8), (uint8_t)last, 0, 0, 1, 0};
	r = cmd(rdlast, 10, 512, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 512, "READ(10) of the last block");
}

static void test_cases(void)
{
	uint8_t b[1024];
	bot_result r;
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0}, tur[6] = {0};
	r = cmd(inq, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 2 && r.residue == 0, "case 2 (Hn < Di): phase error");
	r = cmd(tur, 6, 36, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 0 && r.stall_in && r.residue == 36, "case 4 (Hi > Dn): IN stalled, residue 36");
	r = cmd(inq, 6, 100, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 36 && r.stall_in && r.residue == 64, "case 5 (Hi > Di): 36 bytes, STALL, residue 64");
	r = cmd(inq, 6, 36, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 36 && !r.stall_in && r.residue == 0, "case 6 (Hi = Di): good, residue 0");
	r = cmd(inq, 6, 10, true, b);
	CHECK(r.ok && r.status == 2 && r.got == 10, "case 7 (Hi < Di): 10 bytes, phase error");
	uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 2, 0};
	r = cmd(rd, 10, 512, true, b);
	CHECK(r.ok && r.status == 2 && r.got == 512, "case 7 with READ(10) of 2 blocks into 512: phase error");
	r = cmd(rd, 10, 1000, true, b);
	CHECK(r.ok && r.status == 2 && r.got == 1000, "case 7 with a length not a multiple of 512");
	r = cmd(tur, 6, 64, false, b);
	CHECK(r.ok && r.status == 0 && r.got == 64 && r.residue == 64, "case 9 (Ho > Dn): data discarded, residue 64");
	r = cmd(inq, 6, 36, false, b);
	CHECK(r.ok && r.status == 2, "case 10 (Ho <> Di): phase error");
	r = cmd(tur, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 0, "and then the next command works");
}

static void test_invalid_cbw(void)
{
	uint8_t cbw[31], b[64];
	uint16_t n;
	uint8_t tur[6] = {0};
	bot_cbw(cbw, 77, 0, false, 0, tur, 6);
	int st = fk_out(&F, 0x03, cbw, 30);
	CHECK(st == FK_OK && F.ep[1][3].stalled && F.ep[0][3].stalled, "a 30-byte CBW stalls both bulk endpoints");
	bot_clear_halt(&H, 0x83);
	bot_clear_halt(&H, 0x03);
	CHECK(F.ep[1][3].stalled && F.ep[0][3].stalled, "clearing the halts does not unstall them before a reset (§6.6.1)");
	CHECK(fk_control(&F, 0x82, 0, 0, 0x83, 2, b, &n) == FK_OK && b[0] == 1, "GET_STATUS(0x83) still reports Halt");
	fk_control(&F, 0x21, 0xFF, 0, 0, 0, NULL, NULL);
	bot_clear_halt(&H, 0x83);
	bot_clear_halt(&H, 0x03);
	CHECK(!F.ep[1][3].stalled && !F.ep[0][3].stalled, "reset recovery (BOT reset + clear halts) unstalls");
	bot_result r = cmd(tur, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 0, "commands work after reset recovery");
	bot_cbw(cbw, 78, 0, false, 0, tur, 6);
	cbw[0] ^= 1;
	fk_out(&F, 0x03, cbw, 31);
	CHECK(F.ep[1][3].stalled && F.ep[0][3].stalled, "a CBW with a bad signature stalls both");
	fk_control(&F, 0x21, 0xFF, 0, 0, 0, NULL, NULL);
	bot_clear_halt(&H, 0x83);
	bot_clear_halt(&H, 0x03);
	bot_cbw(cbw, 79, 0, false, 1, tur, 6);
	r = bot_raw(&H, cbw, 31, 0, false, NULL);
	uint8_t key, asc;
	sense_of(&key, &asc);
	CHECK(r.ok && r.status == 1 && key == 5 && asc == 0x25, "LUN 1: failed, LOGICAL UNIT NOT SUPPORTED");
	bot_cbw(cbw, 80, 0, false, 0, tur, 0);
	r = bot_raw(&H, cbw, 31, 0, false, NULL);
	CHECK(r.ok && r.status == 1, "bCBWCBLength 0: failed");
	bot_cbw(cbw, 81, 0, false, 0, tur, 6);
	cbw[14] = 17;
	r = bot_raw(&H, cbw, 31, 0, false, NULL);
	CHECK(r.ok && r.status == 1, "bCBWCBLength 17: failed");
	uint8_t rd[10] = {0x28};
	r = cmd(rd, 6, 0, false, NULL);
	CHECK(r.ok && r.status == 1, "READ(10) in a 6-byte CDB: failed");
	CHECK(F.errors == 0, "the fake dcd saw no contract violation (%s)", F.last_error);
}

static void test_disk_image(void)
{
	uint32_t total = ng_disk_sectors();
	uint8_t *img = calloc(total, 512), *direct = calloc(1, 512);
	int ok = 1;
	for (uint32_t lba = 0; lba < total && ok; lba += 16) {
		uint32_t n = total - lba < 16 ? total - lba : 16;
		uint8_t rd[10] = {0x28, 0, (uint8_t)(lba >> 24), (uint8_t)(lba >> 16), (uint8_t)(lba >> 8), (uint8_t)lba, 0, 0, (uint8_t)n, 0};
		bot_result r = cmd(rd, 10, n * 512, true, img + (size_t)lba * 512);
		ok &= r.ok && r.status == 0 && r.got == n * 512 && r.residue == 0;
	}
	for (uint32_t lba = 0; lba < total && ok; lba++) {
		ng_disk_read(NULL, lba, direct);
		ok &= memcmp(direct, img + (size_t)lba * 512, 512) == 0;
	}
	CHECK(ok, "the whole disk (%u sectors) read over BOT with READ(10) of 16 blocks", total);
	CHECK(ng_disk_read(NULL, total, direct) == NG_ERR_ARG, "ng_disk_read past the end is NG_ERR_ARG");
	CHECK(img[510] == 0x55 && img[511] == 0xAA && memcmp(img + 54, "FAT12   ", 8) == 0, "boot sector signature and FAT12 type");

	char dir[] = "/tmp/ng-msc-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	char path[256], cmdline[1024];
	snprintf(path, sizeof path, "%s/disk.img", dir);
	FILE *f = fopen(path, "wb");
	fwrite(img, 512, total, f);
	fclose(f);
	free(img);
	free(direct);
	if (system("command -v fsck.fat >/dev/null 2>&1 && command -v mcopy >/dev/null 2>&1") != 0) {
		SKIP("disk image checks: fsck.fat or mtools missing (apt-get install dosfstools mtools)");
		return;
	}
	snprintf(cmdline, sizeof cmdline, "fsck.fat -n %s > %s/fsck.log 2>&1", path, dir);
	int rc = system(cmdline);
	snprintf(cmdline, sizeof cmdline, "sed 's/^/# /' %s/fsck.log", dir);
	int shown = system(cmdline); /* the log is only shown */
	(void)shown;
	CHECK(rc == 0, "fsck.fat -n accepts the image");
	snprintf(cmdline, sizeof cmdline,
		 "cd %s && MTOOLS_SKIP_CHECK=1 mcopy -n -i disk.img ::README ::COPYING . && cmp COPYING /usr/share/common-licenses/GPL-3",
		 dir);
	CHECK(system(cmdline) == 0, "mcopy extracts COPYING, identical to /usr/share/common-licenses/GPL-3");
	snprintf(cmdline, sizeof cmdline, "cd %s && cmp README %s/usb/disk/README", dir, getcwd(path, sizeof path) ? path : ".");
	CHECK(system(cmdline) == 0, "mcopy extracts README, identical to usb/disk/README");
	snprintf(cmdline, sizeof cmdline, "cd %s && MTOOLS_SKIP_CHECK=1 mdir -i disk.img :: | grep -c -E '^(README|COPYING) ' | grep -qx 2", dir);
	CHECK(system(cmdline) == 0, "mdir lists README and COPYING");
	snprintf(cmdline, sizeof cmdline, "rm -rf %s", dir);
	int removed = system(cmdline);
	(void)removed;
}

int main(void)
{
	start();
	CHECK(M.configured && F.ep[0][3].pending, "configured: bulk OUT armed for a CBW");
	test_class_requests();
	test_commands();
	test_cases();
	test_invalid_cbw();
	test_disk_image();
	return ng_check_exit();
}
