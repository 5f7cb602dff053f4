/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ng_json_str (host/base/json.c): RFC 8259 escapes, RFC 3629 well-formed UTF-8
 * passed through, and every other byte replaced by U+FFFD, each case with
 * its expected output written out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "json.h"

static void expect(const char *in, const char *want, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ng_json_str(f, in);
	fclose(f);
	CHECK(buf && !strcmp(buf, want), "%s: got %s", what, buf ? buf : "(null)");
	free(buf);
}

int main(void)
{
	expect("", "\"\"", "empty string");
	expect("neug /dev/ttyACM0", "\"neug /dev/ttyACM0\"", "plain ASCII unchanged");
	expect("a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash escaped");
	expect("t\tn\nx\x01\x1f\x7f", "\"t\\u0009n\\u000ax\\u0001\\u001f\\u007f\"", "control characters escaped");
	expect("/\x20~", "\"/ ~\"", "slash, space and tilde unchanged");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91\"",
	       "2-, 3- and 4-byte UTF-8 passed through");
	expect("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\"", "U+FFFF and U+10FFFF passed through");
	expect("a\xff" "b", "\"a\xef\xbf\xbd" "b\"", "byte 0xff replaced by U+FFFD");
	expect("\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"", "overlong '/' (C0 AF): two replacements");
	expect("\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "overlong 3-byte form refused");
	expect("\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "surrogate U+D800 refused");
	expect("\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "above U+10FFFF refused");
	expect("x\xc3", "\"x\xef\xbf\xbd\"", "sequence cut by the string's end");
	expect("\xe2\x82" "A", "\"\xef\xbf\xbd\xef\xbf\xbd" "A\"", "sequence cut by an ASCII byte");
	return ng_check_exit();
}
