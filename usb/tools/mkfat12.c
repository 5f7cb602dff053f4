/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mkfat12: writes the C source of the NeuG device's read-only FAT12 disk.
 *
 *   mkfat12 OUT.c FILE...      (at most 8 files, 8.3 names from the basename)
 *
 * The volume: 512-byte sectors, 1 sector per cluster, 1 reserved (boot)
 * sector, 2 FATs, 16 root directory entries (1 sector), the files stored
 * contiguously from cluster 2, NG_DISK_TOTAL sectors in all. The output is
 * a list of extents (usb/disk.h): each a run of sectors read from a byte
 * array, zero beyond its end, so the firmware stores the file contents and
 * the non-zero part of the boot, FAT and directory sectors, no padding. The
 * file contents are byte-pair coded per sector (see bpe_build).
 * Timestamps are fixed (2026-01-01 00:00), so the output is reproducible.
 * Layout facts from the Microsoft FAT specification ("FAT: General
 * Overview of On-Disk Format", 2000): BPB fields, FAT12 packing, 8.3
 * directory entries. On bad input it names the file, says why, exits 1 and
 * leaves no output file. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTOR 512u
#define TOTAL 256u       /* 128 KiB volume */
#define ROOT_ENTRIES 16u
#define MAX_FILES 8

static uint8_t boot[SECTOR], fat[SECTOR], root[SECTOR];

struct file {
	char name83[11];
	const char *path;
	uint8_t *data;
	size_t size;
	uint32_t first_cluster, clusters;
};

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }

static void fat_set(uint32_t cl, unsigned v)
{
	uint32_t off = cl + cl / 2; /* FAT12: 1.5 bytes per entry */
	if (cl & 1) {
		fat[off] = (uint8_t)((fat[off] & 0x0F) | ((v << 4) & 0xF0));
		fat[off + 1] = (uint8_t)(v >> 4);
	} else {
		fat[off] = (uint8_t)v;
		fat[off + 1] = (uint8_t)((fat[off + 1] & 0xF0) | ((v >> 8) & 0x0F));
	}
}

static int name83(const char *path, char out[11])
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strchr(b, '.');
	size_t base = dot ? (size_t)(dot - b) : strlen(b), ext = dot ? strlen(dot + 1) : 0;
	if (base == 0 || base > 8 || ext > 3)
		return -1;
	memset(out, ' ', 11);
	for (size_t i = 0; i < base; i++) {
		char c = b[i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return -1;
		out[i] = c;
	}
	for (size_t i = 0; i < ext; i++) {
		char c = dot[1 + i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		out[8 + i] = c;
	}
	return 0;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "mkfat12: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 65536, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "mkfat12: out of memory reading '%s'\n", path);
			fclose(f);
			return NULL;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	if (ferror(f)) {
		fprintf(stderr, "mkfat12: cannot read '%s': %s\n", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

static size_t trimmed(const uint8_t *p, size_t n)
{
	while (n && p[n - 1] == 0)
		n--;
	return n;
}

static void emit_array(FILE *o, const char *name, const uint8_t *p, size_t n)
{
	fprintf(o, "static const uint8_t %s[%zu] = {", name, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s0x%02x,", i % 16 ? " " : "\n\t", p[i]);
	if (!n)
		fprintf(o, "0");
	fprintf(o, "\n};\n");
}

/* ---- byte-pair encoding of the file contents, sector by sector ----
 * Codes no file byte uses stand for a pair of codes (Gage's BPE): the most
 * frequent adjacent pair, over all sectors, is replaced until no code is
 * free or no pair repeats 3 times. Each sector is coded separately, so the
 * device expands any one sector alone (usb/disk.c), with a stack of at
 * most BPE_DEPTH + 1 entries. */
#define BPE_DEPTH 24

typedef struct {
	uint16_t *sym;   /* the symbols of each sector, concatenated */
	uint32_t *start; /* sector k = sym[start[k] .. start[k + 1]) */
	uint32_t nsec;
} bpe_file;

static uint8_t pair_a[256], pair_b[256], is_pair[256], depth[256];
static uint32_t counts[256 * 256];

static void bpe_build(bpe_file *bf, int nf)
{
	int used[256] = {0};
	for (int f = 0; f < nf; f++)
		for (uint32_t i = 0; i < bf[f].start[bf[f].nsec]; i++)
			used[bf[f].sym[i]] = 1;
	for (int code = 0; code < 256; code++) {
		if (used[code])
			continue;
		memset(counts, 0, sizeof counts);
		for (int f = 0; f < nf; f++)
			for (uint32_t k = 0; k < bf[f].nsec; k++)
				for (uint32_t i = bf[f].start[k]; i + 1 < bf[f].start[k + 1]; i++) {
					unsigned a = bf[f].sym[i], b = bf[f].sym[i + 1];
					if ((is_pair[a] ? depth[a] : 0) + 1 > BPE_DEPTH ||
					    (is_pair[b] ? depth[b] : 0) + 1 > BPE_DEPTH)
						continue;
					counts[a * 256 + b]++;
					if (a == b && i + 2 < bf[f].start[k + 1] && bf[f].sym[i + 2] == a)
						i++; /* aa a: count non-overlapping */
				}
		uint32_t best = 0, bc = 0;
		for (uint32_t x = 0; x < 256 * 256; x++)
			if (counts[x] > bc) {
				bc = counts[x];
				best = x;
			}
		if (bc < 3)
			break;
		unsigned a = best / 256, b = best % 256;
		pair_a[code] = (uint8_t)a;
		pair_b[code] = (uint8_t)b;
		is_pair[code] = 1;
		unsigned da = is_pair[a] ? depth[a] : 0, db = is_pair[b] ? depth[b] : 0;
		depth[code] = (uint8_t)(1 + (da > db ? da : db));
		for (int f = 0; f < nf; f++) { /* replace, sector by sector, in place */
			uint32_t w = 0;
			for (uint32_t k = 0; k < bf[f].nsec; k++) {
				uint32_t r = bf[f].start[k], end = bf[f].start[k + 1];
				bf[f].start[k] = w;
				while (r < end) {
					if (r + 1 < end && bf[f].sym[r] == a && bf[f].sym[r + 1] == b) {
						bf[f].sym[w++] = (uint16_t)code;
						r += 2;
					} else {
						bf[f].sym[w++] = bf[f].sym[r++];
					}
				}
			}
			bf[f].start[bf[f].nsec] = w;
		}
	}
}

static void bpe_split(bpe_file *bf, const uint8_t *data, size_t size)
{
	bf->nsec = (uint32_t)((size + SECTOR - 1) / SECTOR);
	bf->sym = malloc((size + 1) * sizeof *bf->sym);
	bf->start = malloc((bf->nsec + 1) * sizeof *bf->start);
	if (!bf->sym || !bf->start) {
		fprintf(stderr, "mkfat12: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < size; i++)
		bf->sym[i] = data[i];
	for (uint32_t k = 0; k <= bf->nsec; k++)
		bf->start[k] = k * SECTOR < size ? k * SECTOR : (uint32_t)size;
}

/* Expands sector k as the device will and compares (a self-check). */
static int bpe_verify(const bpe_file *bf, uint32_t k, const uint8_t *orig, size_t n)
{
	uint8_t out[SECTOR], stack[BPE_DEPTH + 2];
	size_t o = 0;
	for (uint32_t i = bf->start[k]; i < bf->start[k + 1]; i++) {
		int sp = 0;
		stack[sp++] = (uint8_t)bf->sym[i];
		while (sp) {
			uint8_t c = stack[--sp];
			if (is_pair[c]) {
				if (sp + 2 > BPE_DEPTH + 2)
					return -1;
				stack[sp++] = pair_b[c];
				stack[sp++] = pair_a[c];
			} else if (o < SECTOR) {
				out[o++] = c;
			} else {
				return -1;
			}
		}
	}
	return o == n && memcmp(out, orig, n) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc - 2 > MAX_FILES) {
		fprintf(stderr, "usage: mkfat12 OUT.c FILE... (1 to %d files)\n", MAX_FILES);
		return 2;
	}
	const char *out = argv[1];
	struct file files[MAX_FILES];
	int nf = argc - 2;
	/* sectors: 0 boot, 1..2 FATs, 3 root, 4.. data (cluster 2 = sector 4) */
	const uint32_t fat_start = 1, fat_secs = 1, root_start = fat_start + 2 * fat_secs,
		       data_start = root_start + ROOT_ENTRIES * 32 / SECTOR;
	const uint32_t clusters_total = TOTAL - data_start; /* < 4085: FAT12 */
	uint32_t next = 2;
	for (int i = 0; i < nf; i++) {
		struct file *f = &files[i];
		f->path = argv[2 + i];
		if (name83(f->path, f->name83) != 0) {
			fprintf(stderr, "mkfat12: '%s': not a plain 8.3 file name\n", f->path);
			return 1;
		}
		f->data = slurp(f->path, &f->size);
		if (!f->data)
			return 1;
		f->clusters = (uint32_t)((f->size + SECTOR - 1) / SECTOR);
		f->first_cluster = f->clusters ? next : 0;
		next += f->clusters;
		if (next - 2 > clusters_total || (next + next / 2 + 2) > fat_secs * SECTOR) {
			fprintf(stderr, "mkfat12: '%s': the files do not fit in %u sectors\n", f->path, TOTAL);
			return 1;
		}
	}

	/* Boot sector with the BPB (FAT spec §3.1, §3.2). */
	static const uint8_t jmp[3] = {0xEB, 0x3C, 0x90};
	memcpy(boot, jmp, 3);
	memcpy(boot + 3, "NEUG    ", 8);     /* BS_OEMName */
	put16(boot + 11, SECTOR);           /* BPB_BytsPerSec */
	boot[13] = 1;                       /* BPB_SecPerClus */
	put16(boot + 14, fat_start);        /* BPB_RsvdSecCnt */
	boot[16] = 2;                       /* BPB_NumFATs */
	put16(boot + 17, ROOT_ENTRIES);     /* BPB_RootEntCnt */
	put16(boot + 19, TOTAL);            /* BPB_TotSec16 */
	boot[21] = 0xF8;                    /* BPB_Media: fixed */
	put16(boot + 22, fat_secs);         /* BPB_FATSz16 */
	put16(boot + 24, 32);               /* BPB_SecPerTrk */
	put16(boot + 26, 2);                /* BPB_NumHeads */
	put32(boot + 28, 0);                /* BPB_HiddSec */
	put32(boot + 32, 0);                /* BPB_TotSec32 */
	boot[36] = 0x80;                    /* BS_DrvNum */
	boot[38] = 0x29;                    /* BS_BootSig: the next 3 fields exist */
	put32(boot + 39, 0x4E655547u);      /* BS_VolID */
	memcpy(boot + 43, "NEUG       ", 11); /* BS_VolLab */
	memcpy(boot + 54, "FAT12   ", 8);   /* BS_FilSysType */
	/* not bootable: the code prints nothing and halts (int 18h: no boot) */
	static const uint8_t code[] = {0xCD, 0x18, 0xEB, 0xFE};
	memcpy(boot + 62, code, sizeof code);
	boot[510] = 0x55;
	boot[511] = 0xAA;

	/* FAT: entries 0 and 1 reserved, then one chain per file. */
	fat_set(0, 0xF00u | 0xF8u);
	fat_set(1, 0xFFF);
	for (int i = 0; i < nf; i++)
		for (uint32_t c = 0; c < files[i].clusters; c++) {
			uint32_t cl = files[i].first_cluster + c;
			fat_set(cl, c + 1 == files[i].clusters ? 0xFFFu : cl + 1);
		}

	/* Root directory: the volume label, then the files (read-only). */
	const unsigned date = ((2026 - 1980) << 9) | (1 << 5) | 1, time = 0;
	uint8_t *e = root;
	memcpy(e, "NEUG       ", 11);
	e[11] = 0x08; /* ATTR_VOLUME_ID */
	put16(e + 22, time);
	put16(e + 24, date);
	for (int i = 0; i < nf; i++) {
		e = root + 32 * (i + 1);
		memcpy(e, files[i].name83, 11);
		e[11] = 0x01 | 0x20; /* ATTR_READ_ONLY | ATTR_ARCHIVE */
		put16(e + 14, time); /* DIR_CrtTime */
		put16(e + 16, date); /* DIR_CrtDate */
		put16(e + 18, date); /* DIR_LstAccDate */
		put16(e + 22, time); /* DIR_WrtTime */
		put16(e + 24, date); /* DIR_WrtDate */
		put16(e + 26, files[i].first_cluster);
		put32(e + 28, (uint32_t)files[i].size);
	}

	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", out);
	FILE *o = fopen(tmp, "w");
	if (!o) {
		fprintf(stderr, "mkfat12: cannot create '%s': %s\n", tmp, strerror(errno));
		return 1;
	}
	fprintf(o, "/* Generated by usb/tools/mkfat12.c: do not edit. */\n#include \"disk.h\"\n\n");
	emit_array(o, "boot", boot, trimmed(boot, SECTOR));
	emit_array(o, "fat", fat, trimmed(fat, SECTOR));
	emit_array(o, "root", root, trimmed(root, SECTOR));
	static bpe_file bf[MAX_FILES];
	for (int i = 0; i < nf; i++)
		bpe_split(&bf[i], files[i].data, files[i].size);
	bpe_build(bf, nf);
	size_t packed = 0, raw = 0;
	for (int i = 0; i < nf; i++) {
		for (uint32_t k = 0; k < bf[i].nsec; k++) {
			size_t n = files[i].size - (size_t)k * SECTOR;
			if (bpe_verify(&bf[i], k, files[i].data + (size_t)k * SECTOR, n < SECTOR ? n : SECTOR) != 0) {
				fprintf(stderr, "mkfat12: internal error: '%s' sector %u does not expand back\n",
					files[i].path, k);
				fclose(o);
				remove(tmp);
				return 1;
			}
		}
		uint32_t total = bf[i].start[bf[i].nsec];
		uint8_t *b = malloc(total ? total : 1);
		for (uint32_t j = 0; j < total; j++)
			b[j] = (uint8_t)bf[i].sym[j];
		char nm[32];
		snprintf(nm, sizeof nm, "file%d", i);
		fprintf(o, "/* %s: %zu bytes, %u byte-pair coded */\n", files[i].path, files[i].size, total);
		emit_array(o, nm, b, total);
		fprintf(o, "static const uint16_t file%d_off[%u] = {", i, bf[i].nsec + 1);
		for (uint32_t k = 0; k <= bf[i].nsec; k++)
			fprintf(o, "%s%uu,", k % 12 ? " " : "\n\t", bf[i].start[k]);
		fprintf(o, "\n};\n");
		packed += total + 2 * (bf[i].nsec + 1);
		raw += files[i].size;
		free(b);
	}
	fprintf(o, "\n/* byte-pair codes: a bit set in ng_disk_bpe_map = the code stands for\n"
		   " * the pair ng_disk_bpe_pairs[code] (expansion depth <= %d) */\n", BPE_DEPTH);
	fprintf(o, "const uint8_t ng_disk_bpe_map[32] = {");
	for (int j = 0; j < 32; j++) {
		unsigned v = 0;
		for (int bit = 0; bit < 8; bit++)
			v |= (unsigned)is_pair[j * 8 + bit] << bit;
		fprintf(o, "%s0x%02x,", j % 16 ? " " : "\n\t", v);
	}
	fprintf(o, "\n};\nconst uint8_t ng_disk_bpe_pairs[256][2] = {");
	for (int j = 0; j < 256; j++)
		fprintf(o, "%s{%u, %u},", j % 8 ? " " : "\n\t", pair_a[j], pair_b[j]);
	fprintf(o, "\n};\n");
	fprintf(stderr, "mkfat12: %zu bytes of files stored in %zu\n", raw, packed + 512);
	fprintf(o, "\nconst uint32_t ng_disk_total_sectors = %uu;\n", TOTAL);
	fprintf(o, "const ng_disk_extent ng_disk_extents[] = {\n");
	fprintf(o, "\t{0u, 1u, boot, sizeof boot, NULL},\n");
	fprintf(o, "\t{%uu, %uu, fat, sizeof fat, NULL},\n", fat_start, fat_secs);
	fprintf(o, "\t{%uu, %uu, fat, sizeof fat, NULL},\n", fat_start + fat_secs, fat_secs);
	fprintf(o, "\t{%uu, 1u, root, sizeof root, NULL},\n", root_start);
	for (int i = 0; i < nf; i++)
		if (files[i].clusters)
			fprintf(o, "\t{%uu, %uu, file%d, %zuu, file%d_off},\n", data_start + files[i].first_cluster - 2,
				files[i].clusters, i, files[i].size, i);
	fprintf(o, "};\nconst uint32_t ng_disk_n_extents = sizeof ng_disk_extents / sizeof ng_disk_extents[0];\n");
	if (fclose(o) != 0 || rename(tmp, out) != 0) {
		fprintf(stderr, "mkfat12: cannot write '%s': %s\n", out, strerror(errno));
		remove(tmp);
		return 1;
	}
	for (int i = 0; i < nf; i++)
		free(files[i].data);
	return 0;
}
