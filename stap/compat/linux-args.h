/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every file SystemTap compiles for a kernel (KCFLAGS=-include,
 * stap/fsaio-stap.sh): systemtap 4.8's tracepoint code defines COUNT_ARGS
 * (12 arguments) after including the kernel's headers, which since 6.7
 * define it in linux/args.h (15 arguments); stap builds that code with
 * -Werror, so the redefinition fails every kernel.trace() probe ("no
 * match").  Defining linux/args.h's macros here with stap's exact tokens
 * (an identical redefinition is no warning) keeps the kernel's header out.
 * No kernel header fsaio.stp needs counts more than 12 arguments.
 */
#ifndef _LINUX_ARGS_H
#define _LINUX_ARGS_H
#define __COUNT_ARGS(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _n, X...) _n
#define COUNT_ARGS(X...) __COUNT_ARGS(, ##X, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __CONCAT(a, b) a ## b
#define CONCATENATE(a, b) __CONCAT(a, b)
#endif
