/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The subcommands of `neug`. Each returns the process exit status. */
#ifndef NG_COMMANDS_H
#define NG_COMMANDS_H

int ng_cmd_generate(int argc, char **argv);
int ng_cmd_info(int argc, char **argv);
int ng_cmd_assess(int argc, char **argv);
int ng_cmd_fips(int argc, char **argv);
int ng_cmd_cutoffs(int argc, char **argv);
int ng_cmd_feed(int argc, char **argv);
int ng_cmd_egd(int argc, char **argv);
int ng_cmd_emulate(int argc, char **argv);
int ng_cmd_keygen(int argc, char **argv);
int ng_cmd_sign(int argc, char **argv);
int ng_cmd_upgrade(int argc, char **argv);

#endif
