/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/cliopt.c: the one parser of each option kind, on the values every
 * command must accept and refuse alike. */
#include <math.h>
#include <stdint.h>
#include "check.h"
#include "cliopt.h"
#include "ng/pipeline.h"

static void uint_kind(void)
{
	unsigned long long v = 99;
	CHECK(ng_cliopt_uint("4096", 1, 4096, &v) == 0 && v == 4096, "uint: 4096 within 1..4096");
	CHECK(ng_cliopt_uint("0x400", 2, 1 << 20, &v) == 0 && v == 1024, "uint: 0x400 is hex (1024)");
	CHECK(ng_cliopt_uint("010", 0, 100, &v) == 0 && v == 10, "uint: a leading 0 is still decimal (010 = 10)");
	CHECK(ng_cliopt_uint("18446744073709551615", 0, UINT64_MAX, &v) == 0 && v == UINT64_MAX,
	      "uint: the largest 64-bit value");
	v = 7;
	static const char *bad[] = {"", "0", "4097", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x", "0xg",
				    "18446744073709551616", "12abc"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(ng_cliopt_uint(bad[i], 1, 4096, &v) < 0 && v == 7, "uint: '%s' refused within 1..4096, value untouched",
		      bad[i]);
}

static void double_kind(void)
{
	double v = -1;
	CHECK(ng_cliopt_double("2.5", 0, 8, 0, &v) == 0 && v == 2.5, "double: 2.5 within [0, 8]");
	CHECK(ng_cliopt_double("0", 0, 8, 0, &v) == 0 && v == 0, "double: 0 within [0, 8]");
	CHECK(ng_cliopt_double("0", 0, 8, NG_CLIOPT_OPEN_LO, &v) < 0, "double: 0 refused in (0, 8]");
	CHECK(ng_cliopt_double("8", 0, 8, NG_CLIOPT_OPEN_LO, &v) == 0 && v == 8, "double: 8 within (0, 8]");
	CHECK(ng_cliopt_double("1", 0, 1, NG_CLIOPT_OPEN_LO | NG_CLIOPT_OPEN_HI, &v) < 0, "double: 1 refused in (0, 1)");
	CHECK(ng_cliopt_double("1e-9", 0, 1, NG_CLIOPT_OPEN_LO | NG_CLIOPT_OPEN_HI, &v) == 0 && v == 1e-9,
	      "double: 1e-9 within (0, 1)");
	CHECK(ng_cliopt_double("inf", 0, HUGE_VAL, 0, &v) == 0 && isinf(v), "double: inf within [0, inf]");
	static const char *bad[] = {"", "nan", "-0.5", "8.01", " 1", "1 ", "1x", "1e999", "lots"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(ng_cliopt_double(bad[i], 0, 8, 0, &v) < 0, "double: '%s' refused within [0, 8]", bad[i]);
}

static void entropy_uid_size_mode(void)
{
	uint32_t h = 0;
	CHECK(ng_cliopt_min_entropy("3.7", &h) == 0 && h == 3700, "min-entropy: 3.7 -> 3700 millibits");
	CHECK(ng_cliopt_min_entropy("0.1", &h) == 0 && h == NG_MIN_H_MILLI, "min-entropy: 0.1 is the lowest");
	CHECK(ng_cliopt_min_entropy("32", &h) == 0 && h == NG_MAX_H_MILLI, "min-entropy: 32 is the highest");
	CHECK(ng_cliopt_min_entropy("0.09", &h) < 0 && ng_cliopt_min_entropy("33", &h) < 0 &&
	      ng_cliopt_min_entropy("lots", &h) < 0, "min-entropy: 0.09, 33 and 'lots' refused");

	uint32_t u[3] = {0};
	CHECK(ng_cliopt_uid("12345678:9abcdef0:0fedcba9", u) == 0 && u[0] == 0x12345678 && u[1] == 0x9abcdef0 &&
	      u[2] == 0x0fedcba9, "uid: three hex words");
	CHECK(ng_cliopt_uid("0x1:A:ffffffff", u) == 0 && u[0] == 1 && u[1] == 10 && u[2] == 0xffffffff,
	      "uid: 0x prefix, upper case, short words");
	static const char *bad[] = {"12345678:9abcdef0", "1:2:3:4", "123456789:0:0", "1:2:", ":2:3", "1:-2:3",
				    "1: 2:3", "g:0:0"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(ng_cliopt_uid(bad[i], u) < 0, "uid: '%s' refused", bad[i]);

	unsigned long long n = 0;
	CHECK(ng_cliopt_size("4096", &n) == 0 && n == 4096, "size: 4096");
	CHECK(ng_cliopt_size("64K", &n) == 0 && n == 65536 && ng_cliopt_size("64k", &n) == 0 && n == 65536,
	      "size: 64K and 64k");
	CHECK(ng_cliopt_size("1M", &n) == 0 && n == 1u << 20 && ng_cliopt_size("2g", &n) == 0 && n == 2ull << 30,
	      "size: 1M, 2g");
	static const char *bads[] = {"", "-5", " 5", "+5", "10X", "1KB", "99999999999999999999G", "17179869184G"};
	for (size_t i = 0; i < sizeof bads / sizeof *bads; i++)
		CHECK(ng_cliopt_size(bads[i], &n) < 0, "size: '%s' refused", bads[i]);

	uint32_t m = 9;
	CHECK(ng_cliopt_mode("raw", &m) == 0 && m == NG_MODE_RAW && ng_cliopt_mode("1", &m) == 0 && m == NG_MODE_CRC32,
	      "mode: raw and 1 (crc32)");
	CHECK(ng_cliopt_mode("3", &m) < 0 && ng_cliopt_mode("sha", &m) < 0, "mode: 3 and sha refused");
}

int main(void)
{
	uint_kind();
	double_kind();
	entropy_uid_size_mode();
	return ng_check_exit();
}
