/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Selects the board header: the build passes -DNG_BOARD_HEADER="boards/X.h". */
#ifndef NG_FW_BOARD_SELECT_H
#define NG_FW_BOARD_SELECT_H
#ifndef NG_BOARD_HEADER
#error "define NG_BOARD_HEADER (e.g. -DNG_BOARD_HEADER=\"boards/fst-01.h\")"
#endif
#include NG_BOARD_HEADER
#ifndef NG_BOARD_PULLUP_FIXED
#define NG_BOARD_PULLUP_FIXED 0
#endif
#endif
