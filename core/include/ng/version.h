/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef NG_VERSION_H
#define NG_VERSION_H
#define NG_VERSION "0.1.0"
#endif
